import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import type { Hook } from '../../src/hooks/controller-hooks/hook.js';
import { deny, PolicyEnforcer } from '../../src/hooks/controller-hooks/index.js';
import { createLogger } from '../../src/record/logger.js';
import { hooksJson, inline, rule } from './helpers.js';

// The sandbox gate: records that it ran (a marker in its state dir) and the payload it saw. A
// list_files of "__marker__" is denied with the marker log as the reason, so tests can read it.
const GATE = `#!/usr/bin/env python3
import json, os, sys
payload = json.load(sys.stdin)
state = os.environ["HOOKBOX_STATE_DIR"]
if payload["tool_call"]["name"] == "list_files" and payload["tool_call"]["args"]["path"] == "__marker__":
    log = open(os.path.join(state, "gate.log")).read() if os.path.exists(os.path.join(state, "gate.log")) else ""
    print(json.dumps({"decision": "deny", "reason": log}))
    sys.exit(0)
with open(os.path.join(state, "gate.log"), "a") as log:
    log.write(json.dumps(payload["tool_call"], separators=(",", ":")) + "\\n")
print(json.dumps({"decision": "allow"}))
`;
import { execResultOf } from '../../src/tools/results.js';

const redactor: Hook = {
  name: 'redact-secrets',
  afterToolCall: (_context, _call, result) =>
    typeof result.stdout === 'string'
      ? { result: { ...result, stdout: result.stdout.replaceAll('hunter2', '[redacted]') } }
      : undefined,
};
const pinLanguage: Hook = {
  name: 'pin-language',
  beforeToolCall: (_context, call) =>
    call.name === 'code_execution'
      ? { args: { ...call.args, code: `${String(call.args.code)} # audited`, language: 'bash' } }
      : undefined,
};
const policy = new PolicyEnforcer({
  name: 'operator-policy',
  rules: [deny('delete_file', { reason: 'deleting is not allowed here' })],
});

let controller: Controller;
let environment: Environment;
beforeAll(async () => {
  controller = await Controller.start({
    logger: createLogger({ level: 'silent' }),
    home: mkdtempSync(join(tmpdir(), 'hookbox-ctl-')),
    hooks: [policy, pinLanguage, redactor],
  });
  environment = await controller.createEnvironment({
    vocabulary: '2026-05',
    sources: [
      hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.py')] } }),
      inline('.agents/gate.py', GATE),
      inline('workspace/keep.txt', 'keep'),
    ],
  });
});
afterAll(() => controller.close());

const gateLog = async () =>
  (await environment.call({ name: 'list_files', args: { path: '__marker__' } })).reason ?? '';

describe('controller-side hooks and policies around the sandbox gates', () => {
  it('a controller policy blocks a call before any sandbox gate runs', async () => {
    const outcome = await environment.call({ name: 'delete_file', args: { path: 'keep.txt' } });
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toContain('deleting is not allowed here');
    expect(outcome.hooks.map((hook) => [hook.source, hook.handler, hook.outcome])).toEqual([
      ['controller', 'operator-policy', 'deny'],
      ['controller', 'pin-language', 'skipped'],
    ]);
    expect(await gateLog()).not.toContain('delete_file');
    expect(
      (await environment.call({ name: 'read_file', args: { path: 'keep.txt' } })).result,
    ).toEqual({ content: 'keep' });
  });

  it('an argument rewrite reaches the sandbox gate stdin and the tool; the record keeps both', async () => {
    const outcome = await environment.call({
      name: 'code_execution',
      args: { code: 'echo hi', language: 'sh' },
    });
    expect(outcome.blocked).toBe(false);
    expect(outcome.original_args).toEqual({ code: 'echo hi', language: 'sh' });
    expect(outcome.tool_call.args).toEqual({ code: 'echo hi # audited', language: 'bash' });
    expect(await gateLog()).toContain(
      JSON.stringify({
        name: 'code_execution',
        args: { code: 'echo hi # audited', language: 'bash' },
      }),
    );
    const entry = environment
      .records()
      .find((e) => e.kind === 'tool_call' && e.call_id === outcome.call_id);
    expect(entry).toMatchObject({
      tool_call: { args: { code: 'echo hi', language: 'sh' } },
      rewritten_args: { code: 'echo hi # audited', language: 'bash' },
    });
  });

  it('a result rewrite changes what the model is shown while the record keeps the raw result', async () => {
    const outcome = await environment.call({
      name: 'code_execution',
      args: { code: 'echo password=hunter2' },
    });
    expect(execResultOf(outcome).stdout).toBe('password=hunter2\n');
    expect(outcome.presented?.stdout).toBe('password=[redacted]\n');
    const entry = environment
      .records()
      .find((e) => e.kind === 'tool_call' && e.call_id === outcome.call_id);
    expect(entry).toMatchObject({
      result: { stdout: 'password=hunter2\n' },
      presented: { stdout: 'password=[redacted]\n' },
    });
  });

  it('controller hook runs share the record with sandbox hooks, with their own source', async () => {
    const outcome = await environment.call({ name: 'read_file', args: { path: 'keep.txt' } });
    const sources = outcome.hooks.map((hook) => hook.source);
    expect(sources.indexOf('controller')).toBeLessThan(sources.indexOf('sandbox'));
    const logged = environment
      .records()
      .filter((e) => e.kind === 'hook' && e.call_id === outcome.call_id);
    expect(new Set(logged.map((e) => (e.kind === 'hook' ? e.source : '')))).toEqual(
      new Set(['controller', 'sandbox']),
    );
  });
});
