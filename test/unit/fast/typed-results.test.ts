// Typed tool results (docs/testing.md, "Typed tool results"): a call's raw result is typed from the
// agent protocol, and `resultOf`, `toolErrorOf` and `execResultOf` narrow it, or JSON read back from
// the audit log, by checking its shape.
import { afterEach, describe, expect, it } from 'vitest';
import { HookRunner } from '../../../src/hooks/controller-hooks/runner.js';
import { execResultOf, resultOf, toolErrorOf } from '../../../src/tools/results.js';
import { answers, memoryEnvironment, type MemoryEnvironment } from '../fakes/memory-environment.js';

const deny = (command: string) => ({
  g: { pre_tool_execution: [{ matcher: 'code_execution', hooks: [{ type: 'command', command }] }] },
});

let made: MemoryEnvironment | undefined;
afterEach(async () => {
  await made?.close();
  made = undefined;
});

describe('typed tool results', () => {
  it('reads a 2026-05 file tool’s result as that tool’s, and its failure as an error', async () => {
    made = await memoryEnvironment({ hooksJson: {} });
    const call = made.environment.call.bind(made.environment);
    const write = await call({ name: 'write_file', args: { path: 'a.txt', content: 'one' } });
    expect(resultOf(write, 'write_file')).toEqual({ ok: true });
    expect(toolErrorOf(write)).toBeUndefined();
    const read = await call({ name: 'read_file', args: { path: 'a.txt' } });
    expect(resultOf(read, 'read_file').content).toBe('one');
    const listing = await call({ name: 'list_files', args: { path: '.' } });
    expect(resultOf(listing, 'list_files').entries.map((entry) => entry.name)).toEqual(['a.txt']);
    const missing = await call({ name: 'read_file', args: { path: 'none.txt' } });
    expect(toolErrorOf(missing)).toBe('none.txt: no such file');
    expect(() => resultOf(missing, 'read_file')).toThrow(
      /^not a read_file result: \{"error":"none.txt: no such file"\}/,
    );
    expect(() => resultOf(read, 'list_files')).toThrow('not a list_files call: a read_file call');
  });

  it('reads a 2026-09 file tool’s result, delete_file included, as that vocabulary gives it', async () => {
    made = await memoryEnvironment({ hooksJson: {}, vocabulary: '2026-09' });
    const call = made.environment.call.bind(made.environment);
    const write = await call({
      name: 'write_to_file',
      args: { TargetFile: 'b.txt', CodeContent: 'x\ny\n' },
    });
    expect(resultOf(write, 'write_to_file')).toMatchObject({ created: true, bytes_written: 4 });
    const view = await call({ name: 'view_file', args: { AbsolutePath: 'b.txt', StartLine: 2 } });
    expect(resultOf(view, 'view_file').content).toBe('2: y');
    const removed = await call({ name: 'delete_file', args: { TargetFile: 'b.txt' } });
    expect(resultOf(removed, 'delete_file')).toEqual({ ok: true, path: '/workspace/b.txt' });
  });

  it('names a blocked call, which has no result to read', async () => {
    made = await memoryEnvironment({
      hooksJson: deny('deny'),
      agent: { hooks: { deny: answers({ decision: 'deny', reason: 'no' }) } },
    });
    const blocked = await made.environment.call({ name: 'code_execution', args: { code: 'ls' } });
    expect(blocked.blocked).toBe(true);
    expect(() => execResultOf(blocked)).toThrow('not a code_execution result: none (blocked?)');
    expect(() => resultOf(blocked, 'code_execution')).toThrow(
      'not a code_execution result: none (blocked?)',
    );
    expect(() => toolErrorOf(blocked)).toThrow(/no result to read an error from/);
  });

  it('keeps the raw result typed while hooks rewrite what the model is shown', async () => {
    const hooks = new HookRunner([
      { name: 'hide', afterToolCall: () => ({ result: { shown: 'hidden' } }) },
    ]);
    made = await memoryEnvironment({ hooksJson: {}, controllerHooks: hooks });
    const outcome = await made.environment.call({
      name: 'code_execution',
      args: { code: 'echo raw' },
    });
    expect(resultOf(outcome, 'code_execution').stdout).toBe('raw\n');
    expect(outcome.presented).toEqual({ shown: 'hidden' });
    // The audit log gives the result back as JSON: narrowed by the same check.
    const entry = made.audit().find((line) => line.kind === 'tool_call');
    expect(entry?.kind).toBe('tool_call');
    if (entry?.kind === 'tool_call')
      expect(execResultOf(entry.result ?? null).stdout).toBe('raw\n');
  });
});
