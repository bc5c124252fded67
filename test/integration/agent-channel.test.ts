// The agent's channel socket (docs/agent-protocol.md, "The stream"): the controller's requests go
// over it where the engine allows, with the same answers and live output as over stdio; tool code
// and hooks cannot reach it; a second connection gets its own answers; an agent that is not the one
// on the container's stdio is refused.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/record/logger.js';
import { openAgentChannel } from '../../src/sandbox/agent-channel.js';
import { DockerBackend } from '../../src/backends/docker/docker-backend.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { execResultOf } from '../../src/tools/results.js';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';

const controller = useController();
const logger = createLogger({ level: 'silent' });

/** Tries every way to the socket as the user it runs as; prints one line per try. */
const ATTEMPTS = `import os, socket
for path in ["/opt/hookbox/channel/agent.sock", "/proc/1/root/opt/hookbox/channel/agent.sock",
             "/proc/%d/root/opt/hookbox/channel/agent.sock" % os.getppid()]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print("CONNECTED", path)
    except OSError as error:
        print("refused", path, error.errno)
try:
    print("LISTED", os.listdir("/opt/hookbox/channel"))
except OSError as error:
    print("not listed", error.errno)
`;

describe("the agent's channel socket", () => {
  it('carries the requests, answers and live output of a call', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      expect(environment.sandbox.transport).toBe('channel');
      const chunks: string[] = [];
      const outcome = await environment.call(bash('echo one; echo two'), {
        onStdout: (chunk) => chunks.push(chunk),
      });
      expect(outcome.result).toMatchObject({ stdout: 'one\ntwo\n', exit_code: 0 });
      expect(chunks.join('')).toBe('one\ntwo\n');
    });
  });

  it('cannot be reached by tool code or by a hook', async () => {
    const sources = [
      inline('.agents/hooks-scripts/attempts.py', ATTEMPTS),
      inline(
        '.agents/hooks-scripts/hook.py',
        `import contextlib, io, json
tries = io.StringIO()
with contextlib.redirect_stdout(tries):
    exec(open("/.agents/hooks-scripts/attempts.py").read())
print(json.dumps({"decision": "allow", "reason": tries.getvalue()}))
`,
      ),
      hooksJson({
        gate: {
          pre_tool_execution: [
            {
              matcher: 'code_execution',
              hooks: [{ type: 'command', command: 'python3 /.agents/hooks-scripts/hook.py' }],
            },
          ],
        },
      }),
    ];
    await withEnvironment(controller, { sources }, async (environment) => {
      const outcome = await environment.call({
        name: 'code_execution',
        args: { code: ATTEMPTS, language: 'python' },
      });
      const asTool = execResultOf(outcome).stdout;
      const asHook = outcome.hooks[0]!.reason ?? '';
      for (const tries of [asTool, asHook]) {
        expect(tries).toMatch(/refused \/opt\/hookbox\/channel\/agent.sock 13/);
        expect(tries).toMatch(/not listed 13/);
        expect(tries).not.toMatch(/CONNECTED|LISTED/);
        expect(tries.match(/refused/g)?.length).toBe(3);
      }
    });
  });

  it('serves a second connection its own answers, and refuses an agent that is not this one', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      const client = new DockerBackend(logger).runtime;
      const again = await Sandbox.reattach({
        client,
        logger,
        environmentId: environment.id,
        containerId: environment.sandbox.containerId,
      });
      try {
        expect(again.transport).toBe('channel');
        // Both connections at once: each gets the answers to its own requests, and all of them.
        const pings = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            (index % 2 ? again : environment.sandbox).request('ping', {}, 5_000),
          ),
        );
        expect(new Set(pings.map((ping) => ping.instance)).size).toBe(1);
        const outcome = await environment.call(bash('echo theirs'));
        expect(outcome.result).toMatchObject({ stdout: 'theirs\n' });
      } finally {
        await again.disconnect();
      }
      const other = await openAgentChannel(
        client,
        logger,
        environment.sandbox.containerId,
        'not-this-agent',
      );
      expect(other).toBeUndefined();
    });
  });
});
