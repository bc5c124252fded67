// `hookbox call` and the 2026-09 vocabulary: bad input is refused before any container or hook, in
// the vocabulary's own names; without --vocabulary it speaks 2026-09, or 2026-05 when the calls
// name its tools. The batch runner: vocabulary-2026-09-helpers.ts.
import { describe, expect, it } from 'vitest';
import { cli, ownResources, sourcesDir } from './cli-helpers.js';
import { batch, command, hooksJson } from './vocabulary-2026-09-helpers.js';

describe('bad 2026-09 input: exit 2 before any container or hook, in the vocabulary’s own names', () => {
  const gate = {
    '.agents/hooks.json': hooksJson({ g: { pre_tool_execution: [command('.*', 'true')] } }),
  };
  const cases: [string, string, string, RegExp][] = [
    ['view_file', '{}', '2026-09', /view_file: tool_call\.args\.AbsolutePath: required/],
    [
      'view_file',
      '{"AbsolutePath": "a", "StartLine": 3, "EndLine": 2}',
      '2026-09',
      /tool_call\.args\.EndLine: must be at least StartLine \(3\)/,
    ],
    [
      'write_to_file',
      '{"TargetFile": "a", "Content": "x"}',
      '2026-09',
      /tool_call\.args\.CodeContent: required; tool_call\.args\.Content: unknown key "Content"/,
    ],
    [
      'delete_file',
      '{"TargetFile": "a", "path": "b"}',
      '2026-09',
      /tool_call\.args\.path: give only one of TargetFile, AbsolutePath, path/,
    ],
    [
      'read_file',
      '{"path": "a"}',
      '2026-09',
      /unknown tool "read_file" .*; read_file is a tool of vocabulary 2026-05 \(in 2026-09 use view_file\)/,
    ],
    ['view_file', '{"AbsolutePath": "a"}', '2026-05', /unknown tool "view_file"/],
    ['list_dir', '{}', '2026-10', /--vocabulary: must be one of 2026-05, 2026-09/],
  ];
  it.each(cases)('%s %s (vocabulary %s)', async (tool, args, vocabulary, message) => {
    const { code, stderr, stdout } = await cli(
      'call',
      '--sources',
      sourcesDir(gate),
      '--vocabulary',
      vocabulary,
      '--tool',
      tool,
      '--args',
      args,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(await ownResources()).toEqual({ containers: 0, volumes: 0 });
  });
});

describe('hookbox call without --vocabulary', () => {
  it('speaks 2026-09, the default, and 2026-05 when the calls name its tools', async () => {
    const files = { 'workspace/a.txt': 'a\n' };
    const current = await batch(files, [
      { name: 'view_file', args: { AbsolutePath: 'a.txt' } },
      { name: 'delete_file', args: { TargetFile: 'a.txt' } },
    ]);
    expect(current[0]!.result!.content).toBe('1: a');
    expect(current[1]!.result).toMatchObject({ ok: true });
    const older = await batch(files, [{ name: 'read_file', args: { path: 'a.txt' } }]);
    expect(older[0]!.result).toEqual({ content: 'a\n' });
  });
});
