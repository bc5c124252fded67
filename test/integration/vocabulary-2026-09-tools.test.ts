// Every tool of the 2026-09 vocabulary through `hookbox call --vocabulary 2026-09`, in real
// containers, without gates: what each does, where the filesystem ends, timeouts. The batch runner:
// vocabulary-2026-09-helpers.ts.
import { describe, expect, it } from 'vitest';
import { VIEW_FILE_MAX_CHARS } from '../../src/tools/vocabulary-2026-09.js';
import { batch, type Call, v09 } from './vocabulary-2026-09-helpers.js';

const NOTES = 'one\ntwo\nthree\n';

describe('2026-09 tools without gates', () => {
  it('write_to_file, view_file, replace_file_content, list_dir, find_by_name, grep_search, delete_file', async () => {
    const calls: Call[] = [
      /* 0 */ { name: 'write_to_file', args: { TargetFile: 'notes/a.txt', CodeContent: NOTES } },
      /* 1 */ {
        name: 'write_to_file',
        args: { TargetFile: '/workspace/notes/a.txt', CodeContent: 'clobbered', Description: 'x' },
      },
      /* 2 */ { name: 'view_file', args: { AbsolutePath: '/workspace/notes/a.txt' } },
      /* 3 */ {
        name: 'replace_file_content',
        args: {
          TargetFile: 'notes/a.txt',
          StartLine: 2,
          EndLine: 3,
          TargetContent: 'two\nTHREE',
          ReplacementContent: 'nope',
        },
      },
      /* 4 */ { name: 'view_file', args: { AbsolutePath: 'notes/a.txt' } },
      /* 5 */ {
        name: 'replace_file_content',
        args: {
          TargetFile: 'notes/a.txt',
          StartLine: 2,
          EndLine: 2,
          TargetContent: 'two',
          ReplacementContent: 'two-a\ntwo-b',
        },
      },
      /* 6 */ {
        name: 'view_file',
        args: { AbsolutePath: '/workspace/notes/a.txt', StartLine: 2, EndLine: 3 },
      },
      /* 7 */ { name: 'list_dir', args: { DirectoryPath: '/workspace/notes' } },
      /* 8 */ { name: 'find_by_name', args: { SearchDirectory: '/workspace', Pattern: '*.txt' } },
      /* 9 */ {
        name: 'find_by_name',
        args: { SearchDirectory: '/workspace', Pattern: '*.txt', MaxDepth: 1 },
      },
      /* 10 */ { name: 'grep_search', args: { SearchPath: '/workspace', Query: 'two-' } },
      /* 11 */ {
        name: 'grep_search',
        args: { SearchPath: 'notes/a.txt', Query: '^t[a-z]+-b$', IsRegex: true },
      },
      /* 12 */ {
        name: 'write_to_file',
        args: { TargetFile: 'notes/a.txt', CodeContent: 'new\n', Overwrite: true },
      },
      /* 13 */ { name: 'code_execution', args: { code: 'cat notes/a.txt; echo $(whoami)' } },
      /* 14 */ { name: 'delete_file', args: { TargetFile: 'notes/a.txt' } },
      /* 15 */ { name: 'delete_file', args: { AbsolutePath: '/workspace/top.txt' } },
      /* 16 */ { name: 'delete_file', args: { path: 'notes/b.txt' } },
      /* 17 */ { name: 'list_dir', args: { DirectoryPath: 'notes' } },
    ];
    const out = await batch(
      { 'workspace/top.txt': 'top\n', 'workspace/notes/b.txt': 'b\n' },
      calls,
      ...v09,
    );
    expect(out.every((outcome) => !outcome.blocked && outcome.hooks.length === 0)).toBe(true);
    // Hooks and the record see the call verbatim.
    expect(out[1]!.tool_call).toEqual(calls[1]);

    expect(out[0]!.result).toEqual({
      ok: true,
      path: '/workspace/notes/a.txt',
      bytes_written: NOTES.length,
      created: true,
    });
    // An existing file without Overwrite: an error, and the file is unchanged.
    expect(out[1]!.result!.error).toMatch(
      /^\/workspace\/notes\/a\.txt: already exists; pass Overwrite: true/,
    );
    expect(out[2]!.result).toEqual({
      path: '/workspace/notes/a.txt',
      total_lines: 3,
      start_line: 1,
      end_line: 3,
      content: '1: one\n2: two\n3: three',
      truncated: false,
    });
    // TargetContent that does not match: an error that shows the lines, and the file is unchanged.
    expect(out[3]!.result!.error).toBe(
      '/workspace/notes/a.txt: TargetContent does not match lines 2-3; the file is unchanged. Lines 2-3 are now:\n2: two\n3: three',
    );
    expect(out[4]!.result!.content).toBe('1: one\n2: two\n3: three');
    expect(out[5]!.result).toEqual({
      ok: true,
      path: '/workspace/notes/a.txt',
      start_line: 2,
      end_line: 3,
      total_lines: 4,
    });
    expect(out[6]!.result).toMatchObject({
      total_lines: 4,
      start_line: 2,
      end_line: 3,
      content: '2: two-a\n3: two-b',
    });
    expect(out[7]!.result).toEqual({
      path: '/workspace/notes',
      entries: [
        { name: 'a.txt', type: 'file', size: 'one\ntwo-a\ntwo-b\nthree\n'.length },
        { name: 'b.txt', type: 'file', size: 2 },
      ],
      truncated: false,
    });
    expect(out[8]!.result).toEqual({
      directory: '/workspace',
      matches: [
        { path: '/workspace/notes/a.txt', type: 'file', size: 22 },
        { path: '/workspace/notes/b.txt', type: 'file', size: 2 },
        { path: '/workspace/top.txt', type: 'file', size: 4 },
      ],
      truncated: false,
    });
    expect(out[9]!.result!.matches).toEqual([
      { path: '/workspace/top.txt', type: 'file', size: 4 },
    ]);
    expect(out[10]!.result).toMatchObject({
      matches: [
        { path: '/workspace/notes/a.txt', line: 2, text: 'two-a' },
        { path: '/workspace/notes/a.txt', line: 3, text: 'two-b' },
      ],
      truncated: false,
      timed_out: false,
    });
    expect(out[11]!.result!.matches).toEqual([
      { path: '/workspace/notes/a.txt', line: 3, text: 'two-b' },
    ]);
    expect(out[12]!.result).toMatchObject({ ok: true, created: false });
    // Files are written by the tool user.
    expect(out[13]!.result!.stdout).toBe('new\ntool\n');
    expect(out[14]!.result).toEqual({ ok: true, path: '/workspace/notes/a.txt' });
    expect(out[15]!.result).toEqual({ ok: true, path: '/workspace/top.txt' });
    expect(out[16]!.result).toEqual({ ok: true, path: '/workspace/notes/b.txt' });
    expect(out[17]!.result!.entries).toEqual([]);
  });

  it('view_file cuts long output at a line end and goes on from ContentOffset', async () => {
    const long = Array.from({ length: 30_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    // The view stops after the last whole line within VIEW_FILE_MAX_CHARS characters.
    const cut = long.lastIndexOf('\n', VIEW_FILE_MAX_CHARS - 1) + 1;
    const lastShown = long.slice(0, cut).split('\n').length - 1;
    const out = await batch(
      { 'workspace/long.txt': long },
      [
        { name: 'view_file', args: { AbsolutePath: 'long.txt' } },
        { name: 'view_file', args: { AbsolutePath: 'long.txt', ContentOffset: cut } },
        {
          name: 'view_file',
          args: { AbsolutePath: 'long.txt', StartLine: 29_999, ContentOffset: 3 },
        },
      ],
      ...v09,
    );
    expect(out[0]!.result).toMatchObject({
      total_lines: 30_000,
      start_line: 1,
      end_line: lastShown,
      truncated: true,
      next_content_offset: cut,
    });
    const second = out[1]!.result!;
    expect(second.start_line).toBe(lastShown + 1);
    expect(String(second.content).split('\n')[0]).toBe(`${lastShown + 1}: line ${lastShown + 1}`);
    expect(out[2]!.result).toMatchObject({
      start_line: 29_999,
      end_line: 30_000,
      content: '29999: e 29999\n30000: line 30000',
      truncated: false,
    });
  });

  it('the filesystem is the boundary: /workspace only, no /.agents, no hook state dir', async () => {
    const out = await batch(
      { '.agents/hooks.json': '{}', 'workspace/a.txt': 'a\n' },
      [
        { name: 'write_to_file', args: { TargetFile: '/etc/evil', CodeContent: 'x' } },
        {
          name: 'write_to_file',
          args: { TargetFile: '/.agents/hooks.json', CodeContent: '{}', Overwrite: true },
        },
        {
          name: 'replace_file_content',
          args: {
            TargetFile: '/workspace/.agents/hooks.json',
            StartLine: 1,
            EndLine: 1,
            TargetContent: '{}',
            ReplacementContent: '{"x": {}}',
          },
        },
        { name: 'delete_file', args: { TargetFile: '/.agents/hooks.json' } },
        { name: 'view_file', args: { AbsolutePath: '/etc/shadow' } },
        { name: 'list_dir', args: { DirectoryPath: '/var/lib/hookbox/state' } },
        { name: 'find_by_name', args: { SearchDirectory: '/var/lib/hookbox/state', Pattern: '*' } },
        { name: 'grep_search', args: { SearchPath: '/etc/shadow', Query: 'root' } },
        { name: 'view_file', args: { AbsolutePath: '/workspace' } },
        { name: 'view_file', args: { AbsolutePath: 'a.txt', StartLine: 5 } },
        {
          name: 'replace_file_content',
          args: {
            TargetFile: 'a.txt',
            StartLine: 1,
            EndLine: 2,
            TargetContent: 'a',
            ReplacementContent: 'b',
          },
        },
        { name: 'grep_search', args: { SearchPath: '.', Query: '(', IsRegex: true } },
        { name: 'code_execution', args: { code: 'cat /.agents/hooks.json; cat a.txt' } },
      ],
      ...v09,
    );
    const errors = out.map((outcome) => outcome.result!.error);
    expect(errors[0]).toMatch(/^\/etc\/evil: (Read-only file system|Permission denied)/);
    expect(errors[1]).toMatch(
      /^\/\.agents\/hooks\.json: (Read-only file system|Permission denied)/,
    );
    expect(errors[2]).toMatch(
      /^\/workspace\/\.agents\/hooks\.json: (Read-only file system|Permission denied)/,
    );
    expect(errors[3]).toMatch(
      /^\/\.agents\/hooks\.json: (Read-only file system|Permission denied)/,
    );
    expect(errors[4]).toBe('/etc/shadow: Permission denied');
    expect(errors[5]).toBe('/var/lib/hookbox/state: Permission denied');
    expect(errors[6]).toBe('/var/lib/hookbox/state: Permission denied');
    expect(errors[7]).toBe('/etc/shadow: Permission denied');
    expect(errors[8]).toBe('/workspace: is a directory, not a file');
    expect(errors[9]).toBe('/workspace/a.txt: StartLine 5 is past the end of the file (1 line)');
    expect(errors[10]).toBe('/workspace/a.txt: EndLine 2 is past the end of the file (1 line)');
    expect(errors[11]).toMatch(/^Query is not a valid Python regular expression/);
    expect(out[12]!.result!.stdout).toBe('{}a\n');
  });

  it('code_execution accepts command and timeout_seconds, capped by the environment timeout', async () => {
    const out = await batch(
      {},
      [
        { name: 'code_execution', args: { command: 'echo via-command', language: 'sh' } },
        { name: 'code_execution', args: { code: 'sleep 20', timeout_seconds: 1 } },
      ],
      ...v09,
    );
    expect(out[0]!.result).toMatchObject({ exit_code: 0, stdout: 'via-command\n' });
    expect(out[1]!.result).toMatchObject({ timed_out: true });
    const started = Date.now();
    const capped = await batch(
      {},
      [{ name: 'code_execution', args: { code: 'sleep 20', timeout_seconds: 600 } }],
      ...v09,
      '--tool-timeout-ms',
      '1500',
    );
    expect(capped[0]!.result).toMatchObject({ timed_out: true });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a catastrophic regular expression times out without freezing the environment', async () => {
    const out = await batch(
      { 'workspace/a.txt': `${'a'.repeat(40)}b\n` },
      [
        { name: 'grep_search', args: { SearchPath: '.', Query: '^(a+)+$', IsRegex: true } },
        { name: 'code_execution', args: { code: 'echo alive' } },
      ],
      ...v09,
      '--tool-timeout-ms',
      '2000',
    );
    expect(out[0]!.result).toMatchObject({ matches: [], truncated: true, timed_out: true });
    expect(String(out[0]!.result!.note)).toMatch(/timed out after 2 s/);
    expect(out[1]!.result!.stdout).toBe('alive\n');
  });
});
