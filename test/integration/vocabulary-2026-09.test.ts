import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VIEW_FILE_MAX_CHARS } from '../../src/tools/vocabulary-2026-09.js';
import { cli, ownResources, sourcesDir } from './cli-helpers.js';

// Every tool of the 2026-09 vocabulary through `hookbox call --vocabulary 2026-09`, in real containers.

interface Outcome {
  environment_id: string;
  tool_call: { name: string; args: Record<string, unknown> };
  blocked: boolean;
  reason: string | null;
  result: Record<string, unknown> | null;
  hooks: { group: string; event: string; outcome: string; reason: string | null }[];
}
type Call = { name: string; args: Record<string, unknown> };

/** Runs a batch of calls in one environment made from `files`; every call's outcome, in order. */
async function batch(
  files: Record<string, string>,
  calls: Call[],
  ...options: string[]
): Promise<Outcome[]> {
  const callsFile = join(mkdtempSync(join(tmpdir(), 'hookbox-calls-')), 'calls.json');
  writeFileSync(callsFile, JSON.stringify(calls));
  const argv = ['call', '--sources', sourcesDir(files), '--calls', callsFile, '--json', ...options];
  const { code, stdout, stderr } = await cli(...argv);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Outcome[];
}

const v09 = ['--vocabulary', '2026-09'];
const hooksJson = (config: unknown) => JSON.stringify(config, null, 2);
const command = (matcher: string, cmd: string) => ({
  matcher,
  hooks: [{ type: 'command', command: cmd }],
});
const ALL_TOOLS =
  'code_execution|view_file|write_to_file|replace_file_content|list_dir|delete_file|find_by_name|grep_search';

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

describe('2026-09 tools with gates', () => {
  // Denies any call whose arguments mention "secret"; the reason names the tool.
  const GATE = `#!/usr/bin/env python3
import json, sys
call = json.load(sys.stdin)["tool_call"]
if "secret" in json.dumps(call["args"]):
    print(json.dumps({"decision": "deny", "reason": call["name"] + " may not touch secrets"}))
else:
    print(json.dumps({"decision": "allow"}))
`;
  // Keeps the last post payload in the state dir; list_dir of "__post__" is denied with it as reason.
  const CAPTURE = `#!/bin/sh
cat > "$HOOKBOX_STATE_DIR/last-post.json"
`;
  const REPORTER = `#!/usr/bin/env python3
import json, os, sys
args = json.load(sys.stdin)["tool_call"]["args"]
if args.get("DirectoryPath") == "__post__":
    print(json.dumps({"decision": "deny", "reason": open(os.path.join(os.environ["HOOKBOX_STATE_DIR"], "last-post.json")).read()}))
`;
  const files = {
    '.agents/hooks.json': hooksJson({
      reporter: { pre_tool_execution: [command('list_dir', 'python3 /.agents/reporter.py')] },
      gate: { pre_tool_execution: [command(ALL_TOOLS, 'python3 /.agents/gate.py')] },
      capture: { post_tool_execution: [command('.*', 'sh /.agents/capture.sh')] },
    }),
    '.agents/gate.py': GATE,
    '.agents/capture.sh': CAPTURE,
    '.agents/reporter.py': REPORTER,
    'workspace/secret.txt': 'top secret\n',
    'workspace/plain.txt': 'plain\n',
  };

  it('every tool: a deny blocks it (the tool does not run), an allow lets it run', async () => {
    const denied: Call[] = [
      { name: 'code_execution', args: { code: 'rm secret.txt' } },
      { name: 'view_file', args: { AbsolutePath: '/workspace/secret.txt' } },
      { name: 'write_to_file', args: { TargetFile: 'secret2.txt', CodeContent: 'x' } },
      {
        name: 'replace_file_content',
        args: {
          TargetFile: 'secret.txt',
          StartLine: 1,
          EndLine: 1,
          TargetContent: 'top secret',
          ReplacementContent: 'leaked',
        },
      },
      { name: 'list_dir', args: { DirectoryPath: 'secret' } },
      { name: 'delete_file', args: { TargetFile: 'secret.txt' } },
      { name: 'find_by_name', args: { SearchDirectory: '.', Pattern: 'secret*' } },
      { name: 'grep_search', args: { SearchPath: '.', Query: 'secret' } },
    ];
    const allowed: Call[] = [
      { name: 'view_file', args: { AbsolutePath: 'plain.txt' } },
      { name: 'write_to_file', args: { TargetFile: 'new.txt', CodeContent: 'n\n' } },
      {
        name: 'replace_file_content',
        args: {
          TargetFile: 'plain.txt',
          StartLine: 1,
          EndLine: 1,
          TargetContent: 'plain',
          ReplacementContent: 'changed',
        },
      },
      { name: 'list_dir', args: { DirectoryPath: '.' } },
      { name: 'find_by_name', args: { SearchDirectory: '.', Pattern: '*.txt' } },
      { name: 'grep_search', args: { SearchPath: '.', Query: 'changed' } },
      { name: 'delete_file', args: { path: 'new.txt' } },
      { name: 'code_execution', args: { command: 'ls; cat se*' } },
    ];
    const out = await batch(files, [...denied, ...allowed], ...v09);
    denied.forEach((call, index) => {
      const outcome = out[index]!;
      expect(outcome.blocked, call.name).toBe(true);
      expect(outcome.reason).toBe(`${call.name} may not touch secrets`);
      expect(outcome.result).toBeNull();
      expect(outcome.hooks.map((hook) => [hook.group, hook.outcome])).toEqual(
        call.name === 'list_dir'
          ? [
              ['reporter', 'unrecognized'],
              ['gate', 'deny'],
            ]
          : [['gate', 'deny']],
      );
    });
    const ran = out.slice(denied.length);
    ran.forEach((outcome, index) => {
      expect(outcome.blocked, allowed[index]!.name).toBe(false);
      expect(outcome.result!.error, allowed[index]!.name).toBeUndefined();
      expect(outcome.hooks.at(-1)).toMatchObject({ group: 'capture', outcome: 'ok' });
    });
    expect(ran[2]!.result).toMatchObject({ ok: true });
    expect(ran[5]!.result!.matches).toEqual([
      { path: '/workspace/plain.txt', line: 1, text: 'changed' },
    ]);
    // Nothing the denied calls asked for happened.
    expect(ran[7]!.result!.stdout).toBe('plain.txt\nsecret.txt\ntop secret\n');
  });

  it("hooks see the 2026-09 names and arguments verbatim, and a failed tool's error", async () => {
    const mismatch: Call = {
      name: 'replace_file_content',
      args: {
        TargetFile: 'plain.txt',
        StartLine: 1,
        EndLine: 1,
        TargetContent: 'not there',
        ReplacementContent: 'x',
      },
    };
    const out = await batch(
      files,
      [mismatch, { name: 'list_dir', args: { DirectoryPath: '__post__' } }],
      ...v09,
    );
    expect(out[0]!.result!.error).toMatch(/TargetContent does not match lines 1-1/);
    const payload = JSON.parse(out[1]!.reason!);
    expect(payload.tool_call).toEqual(mismatch);
    expect(payload.environment_id).toBe(out[0]!.environment_id);
    expect(payload.error).toBe(out[0]!.result!.error);
    expect(payload.result).toEqual(out[0]!.result);
  });

  it('.*_file fires for view_file, write_to_file, delete_file; not replace_file_content or list_dir', async () => {
    const out = await batch(
      {
        '.agents/hooks.json': hooksJson({
          suffix: { pre_tool_execution: [command('.*_file', 'true')] },
        }),
        'workspace/a.txt': 'a\n',
      },
      [
        { name: 'view_file', args: { AbsolutePath: 'a.txt' } },
        { name: 'write_to_file', args: { TargetFile: 'b.txt', CodeContent: 'b\n' } },
        {
          name: 'replace_file_content',
          args: {
            TargetFile: 'a.txt',
            StartLine: 1,
            EndLine: 1,
            TargetContent: 'a',
            ReplacementContent: 'A',
          },
        },
        { name: 'list_dir', args: { DirectoryPath: '.' } },
        { name: 'delete_file', args: { TargetFile: 'b.txt' } },
        { name: 'find_by_name', args: { SearchDirectory: '.', Pattern: '*' } },
        { name: 'grep_search', args: { SearchPath: '.', Query: 'A' } },
      ],
      ...v09,
    );
    const fired = Object.fromEntries(
      out.map((outcome) => [outcome.tool_call.name, outcome.hooks.length > 0]),
    );
    expect(fired).toEqual({
      view_file: true,
      write_to_file: true,
      replace_file_content: false,
      list_dir: false,
      delete_file: true,
      find_by_name: false,
      grep_search: false,
    });
  });
});

describe('the privacy gate of the Gemini 09 hooks page (matcher view_file)', () => {
  const hooks = hooksJson({
    'privacy-gate': {
      pre_tool_execution: [
        {
          matcher: 'view_file',
          hooks: [
            {
              type: 'command',
              command: 'python3 /.agents/hooks-scripts/check_privacy.py',
              timeout: 5,
            },
          ],
        },
      ],
    },
  });
  // Verbatim from the page: it reads args.path, which view_file does not have in 2026-09.
  const PAGE_SCRIPT = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
path = str(data.get("tool_call", {}).get("args", {}).get("path", ""))

if "/private/" in path:
    resp = {
        "decision": "deny",
        "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."
    }
else:
    resp = {"decision": "allow"}

print(json.dumps(resp))
`;
  // Corrected: reads AbsolutePath (path for 2026-05), and resolves it as the tool will, so a
  // relative path or ".." cannot slip past the check.
  const FIXED_SCRIPT = `#!/usr/bin/env python3
import sys, json, os.path
data = json.load(sys.stdin)
args = data.get("tool_call", {}).get("args", {})
path = str(args.get("AbsolutePath") or args.get("path") or "")
path = os.path.normpath(os.path.join("/workspace", path))

if path.startswith("/workspace/private/") or path == "/workspace/private":
    resp = {
        "decision": "deny",
        "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."
    }
else:
    resp = {"decision": "allow"}

print(json.dumps(resp))
`;
  const workspace = {
    'workspace/private/employees.json':
      '{"employees": [{"id": 1, "salary": 150000, "ssn": "000-00-0000"}]}',
    'workspace/public/summary.json':
      '{"department": "Engineering", "team_size": 42, "status": "active"}',
  };
  const reads: Call[] = [
    { name: 'view_file', args: { AbsolutePath: '/workspace/private/employees.json' } },
    { name: 'view_file', args: { AbsolutePath: 'private/employees.json' } },
    { name: 'view_file', args: { AbsolutePath: '/workspace/public/../private/employees.json' } },
    { name: 'view_file', args: { AbsolutePath: '/workspace/public/summary.json' } },
  ];

  it('the corrected script (AbsolutePath) blocks /workspace/private/…, allows /workspace/public/…', async () => {
    const out = await batch(
      {
        '.agents/hooks.json': hooks,
        '.agents/hooks-scripts/check_privacy.py': FIXED_SCRIPT,
        ...workspace,
      },
      reads,
      ...v09,
    );
    expect(out.map((outcome) => outcome.blocked)).toEqual([true, true, true, false]);
    expect(out[0]!.reason).toMatch(/^Access to confidential `\/private\/` records is blocked/);
    expect(out[3]!.result!.content).toBe(
      '1: {"department": "Engineering", "team_size": 42, "status": "active"}',
    );
  });

  it("the page's script as published (args.path) never blocks a 2026-09 view_file: the pitfall, pinned", async () => {
    const out = await batch(
      {
        '.agents/hooks.json': hooks,
        '.agents/hooks-scripts/check_privacy.py': PAGE_SCRIPT,
        ...workspace,
      },
      reads.slice(0, 1),
      ...v09,
    );
    expect(out[0]!.blocked).toBe(false);
    expect(out[0]!.hooks[0]!.outcome).toBe('allow');
    expect(out[0]!.result!.content).toContain('000-00-0000');
  });
});

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
