// hookbox's hooks.json extensions "prestart" and "worker" (docs/gates.md, "Prestart and workers"):
// checked by the schema and by `hookbox validate`, never silently ignored.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { safeParseHooksConfig } from '../../src/config/hooks-config.js';
import { compileMatcher } from '../../src/config/matcher.js';
import { handlerKeys, prestartRequests } from '../../src/hooks/prestart-plan.js';

const config = (handler: Record<string, unknown>, matcher = 'code_execution') =>
  JSON.stringify({
    g: {
      pre_tool_execution: [{ matcher, hooks: [{ type: 'command', command: 'x', ...handler }] }],
    },
  });

async function validate(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-validate-'));
  mkdirSync(join(dir, '.agents'));
  writeFileSync(join(dir, '.agents', 'hooks.json'), text);
  let stdout = '';
  const code = await main(['validate', dir], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stdout += t),
    isTty: false,
  });
  return { code, stdout };
}

describe('hooks.json extensions prestart and worker', () => {
  it('default to automatic prestart and no worker', () => {
    const parsed = safeParseHooksConfig(config({}));
    if (!parsed.success) throw new Error('expected a valid config');
    expect(parsed.config.groups[0]!.pre_tool_execution[0]!.handlers[0]).toMatchObject({
      prestart: undefined,
      worker: false,
    });
  });

  it('take booleans', () => {
    const parsed = safeParseHooksConfig(config({ prestart: false, worker: true }));
    if (!parsed.success) throw new Error('expected a valid config');
    expect(parsed.config.groups[0]!.pre_tool_execution[0]!.handlers[0]).toMatchObject({
      prestart: false,
      worker: true,
    });
  });

  it('refuse anything else, naming the field, in the schema and in hookbox validate', async () => {
    for (const [field, value, message] of [
      ['prestart', 'yes', 'prestart must be true or false'],
      ['worker', 1, 'worker must be true or false'],
    ] as const) {
      const parsed = safeParseHooksConfig(config({ [field]: value }));
      expect(parsed.success).toBe(false);
      if (parsed.success) continue;
      expect(parsed.problems).toEqual([
        { path: `g.pre_tool_execution[0].hooks[0].${field}`, message },
      ]);
      const result = await validate(config({ [field]: value }));
      expect(result.code).toBe(2);
      expect(result.stdout).toContain(message);
    }
    expect((await validate(config({ worker: true, prestart: false }))).code).toBe(0);
  });

  it('are not accepted on http handlers', () => {
    const parsed = safeParseHooksConfig(
      JSON.stringify({
        g: {
          pre_tool_execution: [
            { hooks: [{ type: 'http', url: 'https://example.com/gate', worker: true }] },
          ],
        },
      }),
    );
    expect(parsed.success).toBe(false);
  });
});

describe('what the agent is asked to start ahead', () => {
  const parse = (text: string) => {
    const parsed = safeParseHooksConfig(text);
    if (!parsed.success) throw new Error('expected a valid config');
    return parsed.config;
  };
  const context = {
    environmentId: 'env_1',
    stateDir: '/var/lib/hookbox/state',
    nextCallId: 'call_next',
    toolNames: ['code_execution', 'read_file', 'write_file'],
    prestart: true,
  };

  it('the tool the matcher allows, else the last tool called, with the next call id', () => {
    const one = parse(config({}));
    const [request] = prestartRequests(one, handlerKeys(one), {
      ...context,
      lastToolName: 'read_file',
    });
    expect(request).toMatchObject({
      prestart: 'auto',
      worker: false,
      env: {
        HOOKBOX_TOOL_NAME: 'code_execution',
        HOOKBOX_CALL_ID: 'call_next',
        HOOKBOX_EVENT: 'pre_tool_execution',
      },
    });
    const many = parse(config({}, '.*_file'));
    expect(
      prestartRequests(many, handlerKeys(many), { ...context, lastToolName: 'write_file' })[0]!.env
        .HOOKBOX_TOOL_NAME,
    ).toBe('write_file');
    expect(compileMatcher('.*_file').ok).toBe(true);
  });

  it('nothing for "prestart": false or with prestart off, but workers either way', () => {
    const off = parse(config({ prestart: false }));
    expect(
      prestartRequests(off, handlerKeys(off), { ...context, lastToolName: undefined }),
    ).toEqual([]);
    const worker = parse(config({ worker: true }));
    expect(
      prestartRequests(worker, handlerKeys(worker), {
        ...context,
        prestart: false,
        lastToolName: undefined,
      }).map((request) => request.worker),
    ).toEqual([true]);
  });
});

describe('hooks.json extension run_as (docs/gates.md, "Running workspace code from a hook")', () => {
  const parse = (text: string) => {
    const parsed = safeParseHooksConfig(text);
    if (!parsed.success) throw new Error('expected a valid config');
    return parsed.config;
  };

  it('defaults to the hook user and takes "tool"', () => {
    const [plain] = parse(config({})).groups[0]!.pre_tool_execution[0]!.handlers;
    expect(plain).toMatchObject({ runAs: 'hook' });
    const [tool] = parse(config({ run_as: 'tool' })).groups[0]!.pre_tool_execution[0]!.handlers;
    expect(tool).toMatchObject({ runAs: 'tool', worker: false });
  });

  it('refuses anything else, and a worker or a forced prestart with "tool", naming the field', async () => {
    for (const [handler, field, message] of [
      [{ run_as: 'root' }, 'run_as', 'run_as must be "hook" or "tool"'],
      [{ run_as: 1000 }, 'run_as', 'run_as must be "hook" or "tool"'],
      [
        { run_as: 'tool', worker: true },
        'worker',
        'a worker runs as the hook user: "worker": true cannot go with "run_as": "tool"',
      ],
      [
        { run_as: 'tool', prestart: true },
        'prestart',
        'a "run_as": "tool" handler starts per event: "prestart": true cannot go with it',
      ],
    ] as const) {
      const parsed = safeParseHooksConfig(config(handler));
      expect(parsed.success).toBe(false);
      if (parsed.success) continue;
      expect(parsed.problems).toEqual([
        { path: `g.pre_tool_execution[0].hooks[0].${field}`, message },
      ]);
      const result = await validate(config(handler));
      expect(result.code).toBe(2);
      expect(result.stdout).toContain(message);
    }
  });

  it('is never started ahead: not asked of the agent even with prestarting on', () => {
    const tool = parse(config({ run_as: 'tool' }));
    expect(
      prestartRequests(tool, handlerKeys(tool), {
        environmentId: 'env_1',
        stateDir: '/var/lib/hookbox/state',
        nextCallId: 'call_next',
        toolNames: ['code_execution'],
        prestart: true,
        lastToolName: undefined,
      }),
    ).toEqual([]);
  });
});
