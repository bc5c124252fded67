// A call cancelled through `CallOptions.signal` (docs/mcp.md, "Progress and cancellation"): the
// tool's processes are killed, and the call ends only once the kill is answered, so a kill meant
// for it never lands on the next call.
import { afterEach, describe, expect, it } from 'vitest';
import { execResultOf } from '../../../src/tools/results.js';
import { memoryEnvironment, type MemoryEnvironment } from '../fakes/memory-environment.js';

let made: MemoryEnvironment | undefined;
afterEach(async () => {
  await made?.close();
  made = undefined;
});

describe('a cancelled call', () => {
  it('is killed, ends after the kill is answered, and the next call runs after it', async () => {
    const seen: string[] = [];
    let killed!: () => void;
    const dies = new Promise<void>((resolve) => (killed = resolve));
    let answerKill!: () => void;
    const killAnswered = new Promise<void>((resolve) => (answerKill = resolve));
    let running!: () => void;
    const runs = new Promise<void>((resolve) => (running = resolve));
    made = await memoryEnvironment({
      hooksJson: {},
      agent: {
        code: async ({ code }) => {
          seen.push(`ran ${code}`);
          if (code !== 'hang') return { exit_code: 0, stdout: `${code}\n` };
          running();
          await dies;
          return { exit_code: 137 };
        },
        kill: async () => {
          seen.push('kill');
          killed();
          await killAnswered;
          seen.push('kill answered');
        },
      },
    });
    const abort = new AbortController();
    const cancelled = made.environment.call(
      { name: 'code_execution', args: { code: 'hang' } },
      { signal: abort.signal },
    );
    await runs;
    abort.abort();
    const next = made.environment.call({ name: 'code_execution', args: { code: 'after' } });
    let ended = false;
    void cancelled.then(() => (ended = true));
    // The tool process is gone, but the kill is not answered yet: the call has not ended.
    await dies;
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    answerKill();
    expect(execResultOf(await cancelled).exit_code).toBe(137);
    expect(execResultOf(await next).stdout).toBe('after\n');
    expect(seen).toEqual(['ran hang', 'kill', 'kill answered', 'ran after']);
  });

  it('with a signal that never aborts, kills nothing', async () => {
    let kills = 0;
    made = await memoryEnvironment({
      hooksJson: {},
      agent: { kill: () => void kills++ },
    });
    const outcome = await made.environment.call(
      { name: 'code_execution', args: { code: 'echo fine' } },
      { signal: new AbortController().signal },
    );
    expect(execResultOf(outcome).stdout).toBe('fine\n');
    expect(kills).toBe(0);
  });
});
