import { beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { hooksJson, inline, rule, useController } from './helpers.js';

const controller = useController();

// Hooks that keep the last payload they saw in the state dir, and a reporter: list_files of the
// path "__pre__" or "__post__" is denied with that payload as the reason, so tests can read it.
const CAPTURE = `#!/bin/sh
cat > "$HOOKBOX_STATE_DIR/last-$1.json"
echo "$HOOKBOX_EVENT $HOOKBOX_TOOL_NAME $HOOKBOX_ENVIRONMENT_ID $(pwd)" > "$HOOKBOX_STATE_DIR/last-$1.env"
`;
const REPORTER = `#!/usr/bin/env python3
import json, os, sys
args = json.load(sys.stdin)["tool_call"]["args"]
which = args.get("path", "")
if which in ("__pre__", "__post__", "__post_env__"):
    name = {"__pre__": "last-pre.json", "__post__": "last-post.json", "__post_env__": "last-post.env"}[which]
    print(json.dumps({"decision": "deny", "reason": open(os.path.join(os.environ["HOOKBOX_STATE_DIR"], name)).read()}))
else:
    print(json.dumps({"decision": "allow"}))
`;
// A gate that blocks any file tool touching "secret" and code mentioning it.
const GATE = `#!/usr/bin/env python3
import json, sys
call = json.load(sys.stdin)["tool_call"]
if "secret" in json.dumps(call["args"]):
    print(json.dumps({"decision": "deny", "reason": call["name"] + " may not touch secrets"}))
else:
    print(json.dumps({"decision": "allow"}))
`;
import { execResultOf, resultOf, toolErrorOf } from '../../src/tools/results.js';

const hooks = {
  reporter: { pre_tool_execution: [rule('list_files', '/.agents/reporter.py')] },
  capture: {
    pre_tool_execution: [rule('*', '/.agents/capture.sh pre')],
    post_tool_execution: [rule('*', '/.agents/capture.sh post')],
  },
  gate: { pre_tool_execution: [rule('.*', '/.agents/gate.py')] },
};

let gated: Environment;
let open: Environment;

/** A hook's stdin payload (docs/gates.md): the fields these tests read. */
interface Payload {
  tool_call: { name: string; args: Record<string, unknown> };
  error?: string;
  result?: unknown;
  [field: string]: unknown;
}

/** What the gate echoed back: its payload (`__pre__`, `__post__`) or its environment (`__post_env__`). */
async function lastPayload(
  environment: Environment,
  which: '__pre__' | '__post__',
): Promise<Payload>;
async function lastPayload(environment: Environment, which: '__post_env__'): Promise<string>;
async function lastPayload(
  environment: Environment,
  which: '__pre__' | '__post__' | '__post_env__',
): Promise<Payload | string> {
  const outcome = await environment.call({ name: 'list_files', args: { path: which } });
  expect(outcome.blocked).toBe(true);
  return which === '__post_env__' ? outcome.reason! : (JSON.parse(outcome.reason!) as Payload);
}

beforeAll(async () => {
  const c = await controller();
  const files = [
    inline('.agents/capture.sh', CAPTURE),
    inline('.agents/reporter.py', REPORTER),
    inline('.agents/gate.py', GATE),
  ];
  const data = [
    inline('workspace/notes/a.txt', 'alpha\n'),
    inline('workspace/secret.txt', 'hunter2\n'),
  ];
  [gated, open] = await Promise.all([
    c.createEnvironment({ sources: [hooksJson(hooks), ...files, ...data] }),
    c.createEnvironment({ sources: data }),
  ]);
});

describe('the five tools without gates', () => {
  it('code_execution runs bash by default, and sh and python', async () => {
    expect(
      (await open.call({ name: 'code_execution', args: { code: 'echo $0; echo err >&2; exit 4' } }))
        .result,
    ).toEqual({
      exit_code: 4,
      stdout: '/bin/bash\n',
      stderr: 'err\n',
      timed_out: false,
      truncated: false,
    });
    expect(
      execResultOf(
        await open.call({ name: 'code_execution', args: { code: 'echo $0', language: 'sh' } }),
      ).stdout,
    ).toBe('/bin/sh\n');
    expect(
      execResultOf(
        await open.call({
          name: 'code_execution',
          args: { code: 'import sys; print(sys.version_info[0])', language: 'python' },
        }),
      ).stdout,
    ).toBe('3\n');
  });

  it('runs in /workspace as the tool user with HOME and TMPDIR inside it', async () => {
    const outcome = await open.call({
      name: 'code_execution',
      args: { code: 'pwd; id -un; echo $HOME; echo $TMPDIR; mktemp' },
    });
    const [pwd, user, home, tmpdir, temp] = execResultOf(outcome).stdout.trim().split('\n');
    expect([pwd, user, home]).toEqual(['/workspace', 'tool', '/workspace']);
    expect(tmpdir!.startsWith('/workspace/')).toBe(true);
    expect(temp!.startsWith(tmpdir!)).toBe(true);
  });

  it('write_file, read_file, list_files, delete_file', async () => {
    expect(
      (
        await open.call({
          name: 'write_file',
          args: { path: 'deep/new/file.txt', content: 'héllo\n' },
        })
      ).result,
    ).toEqual({ ok: true });
    expect(
      (await open.call({ name: 'read_file', args: { path: '/workspace/deep/new/file.txt' } }))
        .result,
    ).toEqual({ content: 'héllo\n' });
    const listing = await open.call({ name: 'list_files', args: { path: 'deep/new' } });
    expect(listing.result).toEqual({ entries: [{ name: 'file.txt', type: 'file', size: 7 }] });
    const top = resultOf(
      await open.call({ name: 'list_files', args: { path: '.' } }),
      'list_files',
    ).entries;
    expect(top).toContainEqual(expect.objectContaining({ name: 'deep', type: 'directory' }));
    expect(
      (await open.call({ name: 'delete_file', args: { path: 'deep/new/file.txt' } })).result,
    ).toEqual({ ok: true });
    expect(
      (await open.call({ name: 'read_file', args: { path: 'deep/new/file.txt' } })).result,
    ).toEqual({ error: '/workspace/deep/new/file.txt: No such file or directory' });
  });

  it('file operations that fail give {error} and the post payload error', async () => {
    const cases = [
      [{ name: 'read_file', args: { path: 'nope.txt' } }, /No such file/],
      [{ name: 'read_file', args: { path: 'notes' } }, /is a directory/],
      [{ name: 'read_file', args: { path: '/etc/shadow' } }, /Permission denied/],
      [
        { name: 'write_file', args: { path: '/etc/evil', content: 'x' } },
        /Read-only file system|Permission denied/,
      ],
      [{ name: 'list_files', args: { path: 'notes/a.txt' } }, /not a directory/],
      [{ name: 'delete_file', args: { path: 'notes' } }, /is a directory/],
      [
        { name: 'delete_file', args: { path: '/etc/passwd' } },
        /Read-only file system|Permission denied/,
      ],
    ] as const;
    for (const [call, message] of cases) {
      const outcome = await open.call({ name: call.name, args: { ...call.args } });
      expect(toolErrorOf(outcome)).toMatch(message);
      expect(outcome.error).toBe(toolErrorOf(outcome));
    }
  });

  it('refuses unknown tools and bad arguments before any hook runs', async () => {
    const before = gated.records().length;
    await expect(gated.call({ name: 'run_shell', args: {} })).rejects.toThrow(
      /unknown tool "run_shell"/,
    );
    await expect(gated.call({ name: 'read_file', args: {} })).rejects.toThrow(
      /tool_call\.args\.path/,
    );
    await expect(gated.call({ name: 'code_execution', args: { code: 1 } })).rejects.toThrow(
      /tool_call\.args\.code: must be a string/,
    );
    await expect(
      gated.call({ name: 'code_execution', args: { code: 'x', language: 'ruby' } }),
    ).rejects.toThrow(/language/);
    await expect(
      gated.call({ name: 'write_file', args: { path: 'a', content: 'x', mode: 7 } }),
    ).rejects.toThrow(/unknown key "mode"/);
    expect(gated.records().length).toBe(before);
  });
});

describe('the five tools through gates', () => {
  it('each tool is allowed when the gate allows, and blocked (not run) when it denies', async () => {
    const allowed = [
      { name: 'code_execution', args: { code: 'echo fine' } },
      { name: 'read_file', args: { path: 'notes/a.txt' } },
      { name: 'write_file', args: { path: 'notes/b.txt', content: 'b' } },
      { name: 'list_files', args: { path: 'notes' } },
      { name: 'delete_file', args: { path: 'notes/b.txt' } },
    ];
    for (const call of allowed) {
      const outcome = await gated.call(call);
      expect(outcome.blocked, call.name).toBe(false);
      expect(outcome.hooks.filter((h) => h.group === 'gate').map((h) => h.outcome)).toEqual([
        'allow',
      ]);
    }
    const denied = [
      { name: 'code_execution', args: { code: 'cat secret.txt > leaked.txt' } },
      { name: 'read_file', args: { path: 'secret.txt' } },
      { name: 'write_file', args: { path: 'secret.txt', content: 'overwritten' } },
      { name: 'list_files', args: { path: 'secret' } },
      { name: 'delete_file', args: { path: 'secret.txt' } },
    ];
    for (const call of denied) {
      const outcome = await gated.call(call);
      expect(outcome.blocked, call.name).toBe(true);
      expect(outcome.reason).toBe(`${call.name} may not touch secrets`);
      expect(outcome.result).toBeNull();
    }
    expect((await open.call({ name: 'read_file', args: { path: 'secret.txt' } })).result).toEqual({
      content: 'hunter2\n',
    });
    const check = await gated.call({
      name: 'code_execution',
      args: { code: 'ls; cat s""ecret.txt' },
    });
    expect(execResultOf(check).stdout).toBe('hunter2\n'.replace(/^/, 'notes\nsecret.txt\n'));
  });

  it('pre payloads carry exactly tool_call (verbatim args) and environment_id', async () => {
    await gated.call({ name: 'code_execution', args: { code: 'true' } });
    expect(await lastPayload(gated, '__pre__')).toEqual({
      tool_call: { name: 'code_execution', args: { code: 'true' } },
      environment_id: gated.id,
    });
  });

  it('post payloads: no error field on success; result extension', async () => {
    await gated.call({ name: 'code_execution', args: { code: 'echo quiet' } });
    const post = await lastPayload(gated, '__post__');
    expect(post).toEqual({
      tool_call: { name: 'code_execution', args: { code: 'echo quiet' } },
      environment_id: gated.id,
      result: { exit_code: 0, stdout: 'quiet\n', stderr: '', timed_out: false, truncated: false },
    });
    expect(await lastPayload(gated, '__post_env__')).toBe(
      `post_tool_execution code_execution ${gated.id} /workspace\n`,
    );
  });

  it('post payloads carry error for stderr output, a non-zero exit, and a failed file operation', async () => {
    await gated.call({ name: 'code_execution', args: { code: 'echo oops >&2' } });
    expect((await lastPayload(gated, '__post__')).error).toBe('oops\n');
    await gated.call({ name: 'code_execution', args: { code: 'exit 3' } });
    expect((await lastPayload(gated, '__post__')).error).toBe('exit code 3');
    await gated.call({ name: 'read_file', args: { path: 'missing.txt' } });
    const post = await lastPayload(gated, '__post__');
    expect(post.error).toBe('/workspace/missing.txt: No such file or directory');
    expect(post.result).toEqual({ error: post.error });
  });

  it('post hooks do not run after a block', async () => {
    await gated.call({ name: 'code_execution', args: { code: 'echo marker-1' } });
    const blocked = await gated.call({ name: 'read_file', args: { path: 'secret.txt' } });
    expect(blocked.blocked).toBe(true);
    expect(blocked.hooks.some((h) => h.event === 'post_tool_execution')).toBe(false);
    expect((await lastPayload(gated, '__post__')).tool_call.args.code).toBe('echo marker-1');
  });

  it('hook runs land in the audit log with every field of docs/contract.md §8', async () => {
    const outcome = await gated.call({ name: 'code_execution', args: { code: 'echo audited' } });
    const entries = gated
      .records()
      .filter((entry) => entry.kind === 'hook' && entry.call_id === outcome.call_id);
    expect(entries.length).toBe(outcome.hooks.length);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        environment_id: gated.id,
        call_id: outcome.call_id,
        source: 'sandbox',
      });
      for (const field of [
        'group',
        'event',
        'handler',
        'outcome',
        'reason',
        'exit_code',
        'duration_ms',
        'at',
      ])
        expect(entry).toHaveProperty(field);
    }
    const call = gated
      .records()
      .find((entry) => entry.kind === 'tool_call' && entry.call_id === outcome.call_id);
    expect(call).toMatchObject({ blocked: false, tool_call: { name: 'code_execution' } });
  });
});
