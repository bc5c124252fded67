// Live output (docs/environments.md, "Live output") against real containers: a long code_execution's
// stdout arrives while it runs — in the library's onStdout, as SSE code_execution_output events, and
// in `hookbox call` — and the post hooks and the result still get all of it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { Hookbox } from '../../src/client/index.js';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { scripted, codeCall } from '../unit/interactions/gemini-requests.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { sourcesDir, type PrintedOutcome } from './cli-helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const LOOP = 'for i in 1 2 3; do echo $i; sleep 1; done';
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });

/** A post hook that ends ok only when it was given the whole stdout (else its record says error). */
const CHECK_POST = `import json, sys
result = json.load(sys.stdin).get("result") or {}
sys.exit(0 if result.get("stdout") == "1\\n2\\n3\\n" else 3)
`;

interface Arrival {
  chunk: string;
  at: number;
}

/**
 * The chunks arrived as the loop printed them, not at the end: three, in order, the first well
 * before the call ended (the loop runs 3 s; a buffered answer would bring them all at the end).
 */
function expectLive(arrivals: Arrival[], endedAt: number): void {
  expect(arrivals.map((a) => a.chunk)).toEqual(['1\n', '2\n', '3\n']);
  expect(endedAt - arrivals[0]!.at).toBeGreaterThan(1500);
  expect(endedAt - arrivals[1]!.at).toBeGreaterThan(500);
}

describe('live output in the library', () => {
  const controller = useController();

  it('onStdout gets each line as the loop prints it; post hooks and the result get all of it', async () => {
    await withEnvironment(
      controller,
      {
        sources: [
          hooksJson({
            seen: { post_tool_execution: [rule('code_execution', 'python3 /.agents/post.py')] },
          }),
          inline('.agents/post.py', CHECK_POST),
        ],
      },
      async (environment) => {
        const arrivals: Arrival[] = [];
        const stderr: string[] = [];
        const outcome = await environment.call(bash(`${LOOP}; echo oops >&2`), {
          onStdout: (chunk) => arrivals.push({ chunk, at: Date.now() }),
          onStderr: (chunk) => stderr.push(chunk),
        });
        const endedAt = Date.now();
        expectLive(arrivals, endedAt);
        const gaps = arrivals.slice(1).map((a, i) => a.at - arrivals[i]!.at);
        console.log(`live output: chunk gaps ${gaps.join(' ms, ')} ms`);
        expect(stderr.join('')).toBe('oops\n');
        expect(outcome.result).toMatchObject({ stdout: '1\n2\n3\n', stderr: 'oops\n' });
        const post = outcome.hooks.find((hook) => hook.event === 'post_tool_execution');
        expect(post).toMatchObject({ outcome: 'ok', exit_code: 0 });
      },
    );
  });

  it('the chunks stop at the output cap, as the result does', async () => {
    await withEnvironment(controller, { outputCapBytes: 1000 }, async (environment) => {
      let streamed = '';
      const outcome = await environment.call(bash('head -c 5000 /dev/zero | tr "\\0" a'), {
        onStdout: (chunk) => (streamed += chunk),
      });
      expect(outcome.result).toMatchObject({ truncated: true });
      expect(streamed).toBe(execResultOf(outcome).stdout);
      expect(streamed.length).toBe(1000);
    });
  });
});

describe('live output over HTTP and in the CLI', () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('a streamed interaction sends code_execution_output events while the call runs', async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-live-')),
      logger,
      startEngine: false,
    });
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      apiKeys: ['live-key-1'],
      logger,
      controller,
    });
    const client = new Hookbox({ baseUrl: server.url, apiKey: 'live-key-1' });
    const events = await client.interactions.create({
      ...scripted({ agent: 'scripted', input: [], environment: 'remote' }, codeCall(LOOP)),
      stream: true,
    } as Parameters<typeof client.interactions.create>[0] & { stream: true });
    const arrivals: Arrival[] = [];
    // docs/gemini-sdks.md, "Streaming": the result step starts with the first output, its chunks
    // come as step.delta events, and its step.stop comes when the call has ended.
    let resultIndex: number | undefined;
    let resultAt = 0;
    let resultText: unknown;
    for await (const event of events) {
      if (event.event_type === 'step.start' && event.step.type === 'code_execution_result')
        resultIndex = event.index;
      else if (event.event_type === 'step.delta' && event.delta.type === 'code_execution_result') {
        arrivals.push({ chunk: event.delta.result, at: Date.now() });
        expect(event.delta.stream).toBe('stdout');
        expect(event.index).toBe(resultIndex);
      } else if (event.event_type === 'step.stop' && event.index === resultIndex) {
        resultAt = Date.now();
      } else if (event.event_type === 'interaction.completed') {
        resultText = event.interaction.steps.at(-1);
      }
    }
    expectLive(arrivals, resultAt);
    expect(resultText).toMatchObject({
      result: '1\n2\n3\n',
      structured_result: { stdout: '1\n2\n3\n' },
    });
  });

  it('`hookbox call` prints the output as it comes, and not with --json', async () => {
    const dir = sourcesDir({ 'workspace/keep.txt': 'x' });
    const arrivals: Arrival[] = [];
    let printed = '';
    const args = ['call', '--sources', dir, '--tool', 'code_execution'];
    const code = await main([...args, '--args', JSON.stringify({ code: LOOP, language: 'bash' })], {
      stdout: (text) => {
        if (/^[123]\n$/.test(text)) arrivals.push({ chunk: text, at: Date.now() });
        printed += text;
      },
      stderr: () => {},
      isTty: false,
    });
    const endedAt = Date.now();
    expect(code).toBe(0);
    expectLive(arrivals, endedAt);
    expect(printed).toContain('output shown above');

    let json = '';
    await main(
      [...args, '--json', '--args', JSON.stringify({ code: 'echo 1', language: 'bash' })],
      {
        stdout: (text) => (json += text),
        stderr: () => {},
        isTty: false,
      },
    );
    expect(execResultOf(JSON.parse(json) as PrintedOutcome).stdout).toBe('1\n');
  });
});
