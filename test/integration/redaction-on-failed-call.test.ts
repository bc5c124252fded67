// A controller result-rewrite hook (the redact-secrets example of docs/policies.md) applies to a
// failed call too: a secret in the output of a failing command never reaches the model.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Hook } from '../../src/hooks/controller-hooks/hook.js';
import { createLogger } from '../../src/record/logger.js';
import { execResultOf } from '../../src/tools/results.js';

const SECRET = /AKIA[0-9A-Z]{16}/g;
// As in docs/policies.md.
const redactSecrets: Hook = {
  name: 'redact-secrets',
  afterToolCall(_context, _call, result) {
    let changed = false;
    const redacted = Object.fromEntries(
      Object.entries(result).map(([key, value]) => {
        if (typeof value !== 'string') return [key, value];
        const clean = value.replace(SECRET, '[redacted]');
        changed ||= clean !== value;
        return [key, clean];
      }),
    );
    if (changed) return { result: redacted };
  },
};
const KEY = 'AKIA' + 'ABCDEFGH12345678';

const controller = await Controller.start({
  home: mkdtempSync(join(tmpdir(), 'hookbox-redact-')),
  logger: createLogger({ level: 'silent' }),
  hooks: [redactSecrets],
});
afterAll(() => controller.close());

describe('redact-secrets on a failed call', () => {
  it('the presented result and error text of a failing command are redacted; the raw result is kept', async () => {
    const environment = await controller.createEnvironment();
    const outcome = await environment.call({
      name: 'code_execution',
      args: { code: `echo "key ${KEY}"; echo "err ${KEY}" >&2; exit 3`, language: 'bash' },
    });
    expect(outcome.is_error).toBe(true);
    expect(JSON.stringify(outcome.presented)).not.toContain(KEY);
    expect(outcome.presented).toMatchObject({
      exit_code: 3,
      stdout: 'key [redacted]\n',
      stderr: 'err [redacted]\n',
      error: expect.stringContaining('err [redacted]') as string,
    });
    expect(execResultOf(outcome).stdout).toContain(KEY);
    expect(outcome.hooks.some((hook) => hook.handler === 'redact-secrets')).toBe(true);
    await environment.delete();
  });

  it('a failed file tool call is redacted too', async () => {
    const environment = await controller.createEnvironment({ vocabulary: '2026-05' });
    const outcome = await environment.call({
      name: 'read_file',
      args: { path: `/workspace/${KEY}.txt` },
    });
    expect(outcome.is_error).toBe(true);
    expect(JSON.stringify(outcome.presented)).not.toContain(KEY);
    expect(String(outcome.presented?.error)).toContain('[redacted]');
    await environment.delete();
  });
});
