// README, Limits: every request within the documented limits works or is refused up front with a
// clear error; the sandbox agent never dies of its input (its death would take the environment).
// Two inputs that did kill it: a hook payload whose JSON, nested in the agent's JSON stream,
// doubles past the agent's line limit, and sources full of control characters (each one six bytes
// as JSON).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SOURCE_LIMITS } from '../../src/config/limits.js';
import { AGENT_MAX_LINE_BYTES } from '../../src/sandbox/agent-connection.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
// Counts the bytes of its stdin and denies when the call holds the marker.
const COUNTING_GATE = `n=$(wc -c); echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"$n\\"}"`;

describe('the sandbox agent never dies of its input', () => {
  it('a hook payload of 20 MiB of quotes (JSON in JSON: 80 MiB if escaped twice) reaches the gate whole', async () => {
    await withEnvironment(
      controller,
      { sources: [hooksJson({ count: { pre_tool_execution: [rule('*', COUNTING_GATE)] } })] },
      async (environment) => {
        const code = '#' + '"'.repeat(20 * 1024 * 1024);
        const outcome = await environment.call(bash(code));
        const payload = JSON.stringify({
          tool_call: { name: 'code_execution', args: { code, language: 'bash' } },
          environment_id: environment.id,
        });
        expect([outcome.blocked, outcome.reason]).toEqual([
          true,
          String(Buffer.byteLength(payload)),
        ]);
        const after = await environment.call(bash('echo alive'));
        expect(after.blocked).toBe(true); // the gate still runs
      },
    );
  });

  it('sources of control characters up to the total limit arrive byte for byte', async () => {
    const each = SOURCE_LIMITS.maxSourceBytes;
    const count = SOURCE_LIMITS.maxTotalBytes / each;
    const contents = Array.from(
      { length: count },
      (_, i) => String.fromCharCode(1 + i).repeat(each - 1) + '\u001f',
    );
    const sources = contents.map((content, i) => inline(`workspace/ctl-${i}.bin`, content));
    await withEnvironment(controller, { sources }, async (environment) => {
      const listing = await environment.call(
        bash(`for i in $(seq 0 ${count - 1}); do sha256sum ctl-$i.bin | cut -d" " -f1; done`),
      );
      expect(execResultOf(listing).stdout).toBe(contents.map((c) => sha256(c) + '\n').join(''));
    });
  });

  it('a request longer than the agent takes is refused up front with a clear error; the agent lives on', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      const code = '\u0001'.repeat(12 * 1024 * 1024); // 72 MiB as JSON
      await expect(environment.call(bash(code))).rejects.toMatchObject({
        kind: 'user',
        code: 'payload_too_large',
      });
      expect(execResultOf(await environment.call(bash('echo alive'))).stdout).toBe('alive\n');
    });
  });

  it('a line longer than the agent reads, written past the controller, is skipped; the agent answers on', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      // Past the controller's own check, straight onto the stream: what a broken client would send.
      const stream = environment as unknown as {
        sandbox: { agent: { stdio: { stdin: NodeJS.WritableStream } } };
      };
      const line = `{"id":987654321,"op":"ping","pad":"${'x'.repeat(AGENT_MAX_LINE_BYTES)}"}\n`;
      stream.sandbox.agent.stdio.stdin.write(line);
      expect(execResultOf(await environment.call(bash('echo alive'))).stdout).toBe('alive\n');
      expect(execResultOf(await environment.call(bash('echo again'))).stdout).toBe('again\n');
    });
  });
});
