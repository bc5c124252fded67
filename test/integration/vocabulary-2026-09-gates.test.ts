// Every tool of the 2026-09 vocabulary through `hookbox call --vocabulary 2026-09`, in real
// containers, with gates: deny and allow for each tool, what hooks see, which tools a matcher
// names. The batch runner: vocabulary-2026-09-helpers.ts.
import { describe, expect, it } from 'vitest';
import { batch, type Call, command, hooksJson, v09 } from './vocabulary-2026-09-helpers.js';

const ALL_TOOLS =
  'code_execution|view_file|write_to_file|replace_file_content|list_dir|delete_file|find_by_name|grep_search';

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
    const payload = JSON.parse(out[1]!.reason!) as Record<string, unknown>;
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
