import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../src/hooks/import/import-hooks.js';
import { cli, sourcesDir } from './cli-helpers.js';

/** The imported .agents/hooks.json: group → event → matcher groups of handlers (docs/hooks.md). */
type HooksJson = Record<string, Record<string, { hooks: { command?: string }[] }[]>>;

/**
 * `hookbox hooks import` of the three kinds of file (docs/dialects.md, "Import"), each then run
 * through `hookbox call --sources DIR`, and the bad input it and the dialects refuse with exit 2.
 */

const GUARD_SH = `#!/bin/bash
cmd=$(jq -r '.tool_input.command')
case "$cmd" in *"rm -rf"*) echo "imported guard: no rm -rf" >&2; exit 2 ;; esac
exit 0
`;

const GUARD_JS = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (input.tool_input.command.includes('curl')) {
  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'plugin: no curl' } }));
}
`;

const AGY_PY = `import json, sys
call = json.load(sys.stdin)["toolCall"]
if "shutdown" in call["args"]["CommandLine"]:
    print(json.dumps({"decision": "deny", "reason": "agy import: no shutdown"}))
else:
    print(json.dumps({"decision": "allow"}))
`;

async function callJson(dir: string, code: string) {
  const run = await cli(
    'call',
    '--sources',
    dir,
    '--tool',
    'code_execution',
    '--args',
    JSON.stringify({ code }),
    '--json',
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as {
    blocked: boolean;
    reason: string | null;
    hooks: { outcome: string; dialect?: string }[];
  };
}

describe('hookbox hooks import', () => {
  it('imports a Claude Code settings file ($CLAUDE_PROJECT_DIR script, prompt handler and Stop event left out) and runs it', async () => {
    const project = sourcesDir({
      '.claude/settings.json': JSON.stringify({
        permissions: { allow: ['Bash(ls:*)'] },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                {
                  type: 'command',
                  command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh',
                  timeout: 10,
                },
                { type: 'prompt', prompt: 'Is this safe?' },
              ],
            },
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: 'python3 .claude/hooks/gone.py' }],
            },
          ],
          Stop: [{ hooks: [{ type: 'command', command: 'echo bye' }] }],
        },
      }),
      '.claude/hooks/guard.sh': GUARD_SH,
    });
    const { chmodSync } = await import('node:fs');
    chmodSync(join(project, '.claude/hooks/guard.sh'), 0o750);
    const out = sourcesDir({});
    const imported = await cli(
      'hooks',
      'import',
      join(project, '.claude/settings.json'),
      '--out',
      out,
      '--json',
    );
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout) as ImportReport;
    expect(report).toMatchObject({
      format: 'claude-code-settings',
      dialect: 'claude-code',
      handlers: 1,
    });
    expect(report.notCarried.map((item) => item.path)).toEqual([
      'hooks.PreToolUse[0].hooks[1].type',
      'hooks.PreToolUse[1].hooks[0].command',
      'hooks.Stop',
    ]);
    const hooks = JSON.parse(readFileSync(join(out, '.agents/hooks.json'), 'utf8')) as HooksJson;
    expect(hooks['claude-code']?.PreToolUse?.[0]?.hooks[0]).toEqual({
      type: 'command',
      command: '/.agents/hooks-scripts/guard.sh',
      timeout: 10,
    });
    expect(statSync(join(out, '.agents/hooks-scripts/guard.sh')).mode & 0o777).toBe(0o750);

    const blocked = await callJson(out, 'rm -rf /tmp/z');
    expect(blocked).toMatchObject({ blocked: true, reason: 'imported guard: no rm -rf' });
    expect(blocked.hooks[0]).toMatchObject({ outcome: 'deny', dialect: 'claude-code' });
    expect((await callJson(out, 'echo fine')).blocked).toBe(false);
  });

  it('imports a Claude Code plugin (${CLAUDE_PLUGIN_ROOT}, node script) and runs it', async () => {
    const plugin = sourcesDir({
      '.claude-plugin/plugin.json': JSON.stringify({ name: 'no-curl' }),
      'hooks/hooks.json': JSON.stringify({
        description: 'blocks curl',
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: 'node ${CLAUDE_PLUGIN_ROOT}/scripts/guard.js' }],
            },
          ],
        },
      }),
      'scripts/guard.js': GUARD_JS,
    });
    const out = sourcesDir({});
    const imported = await cli('hooks', 'import', join(plugin, 'hooks/hooks.json'), '--out', out);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/claude-code-plugin .*group "no-curl", dialect claude-code/);
    expect(
      (JSON.parse(readFileSync(join(out, '.agents/hooks.json'), 'utf8')) as HooksJson)['no-curl']
        ?.PreToolUse?.[0]?.hooks[0]?.command,
    ).toBe('node /.agents/hooks-scripts/guard.js');
    expect(await callJson(out, 'curl http://example.com')).toMatchObject({
      blocked: true,
      reason: 'plugin: no curl',
    });
    expect((await callJson(out, 'echo ok')).blocked).toBe(false);
  });

  it('imports an Antigravity CLI hooks.json (relative script) and runs it', async () => {
    const project = sourcesDir({
      '.agents/hooks.json': JSON.stringify({
        'no-shutdown': {
          PreToolUse: [
            {
              matcher: 'run_command',
              hooks: [{ type: 'command', command: 'python3 ./tools/agy_guard.py' }],
            },
          ],
          PreInvocation: [{ hooks: [{ type: 'command', command: 'echo hi' }] }],
        },
      }),
      'tools/agy_guard.py': AGY_PY,
    });
    const out = sourcesDir({});
    const imported = await cli(
      'hooks',
      'import',
      join(project, '.agents/hooks.json'),
      '--out',
      out,
      '--json',
    );
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout) as ImportReport;
    expect(report).toMatchObject({
      format: 'antigravity-cli',
      dialect: 'antigravity-cli',
      groups: ['no-shutdown'],
    });
    expect(report.notCarried).toEqual([
      {
        path: 'no-shutdown.PreInvocation',
        what: expect.stringMatching(/no counterpart/) as string,
      },
    ]);
    expect(existsSync(join(out, '.agents/hooks-scripts/agy_guard.py'))).toBe(true);
    expect(await callJson(out, 'shutdown now')).toMatchObject({
      blocked: true,
      reason: 'agy import: no shutdown',
    });
    expect((await callJson(out, 'echo up')).blocked).toBe(false);
  });
});

describe('bad input: exit 2, naming the file and the field', () => {
  it('an import of a file that is not a hooks config', async () => {
    const dir = sourcesDir({
      'package.json': JSON.stringify({ name: 'x', scripts: {} }),
      'broken.json': '{"hooks": ',
    });
    const notConfig = await cli(
      'hooks',
      'import',
      join(dir, 'package.json'),
      '--out',
      join(dir, 'out'),
    );
    expect(notConfig.code).toBe(2);
    expect(notConfig.stderr).toMatch(/package\.json: \(top level\): not a hooks config/);
    const notJson = await cli(
      'hooks',
      'import',
      join(dir, 'broken.json'),
      '--out',
      join(dir, 'out'),
    );
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/broken\.json: \(file\): not valid JSON/);
    const badHooks = sourcesDir({ 'settings.json': JSON.stringify({ hooks: ['PreToolUse'] }) });
    const wrong = await cli(
      'hooks',
      'import',
      join(badHooks, 'settings.json'),
      '--out',
      join(badHooks, 'out'),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/settings\.json: hooks: must be an object of events/);
  });

  it('an unknown dialect, and Gemini event keys in a dialect group', async () => {
    const rules = [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }];
    const unknown = sourcesDir({
      '.agents/hooks.json': JSON.stringify({ g: { dialect: 'windsurf', PreToolUse: rules } }),
    });
    const first = await cli(
      'call',
      '--sources',
      unknown,
      '--tool',
      'code_execution',
      '--args',
      '{"code": "true"}',
    );
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(/\.agents\/hooks\.json.*g\.dialect: unknown dialect "windsurf"/s);
    const mixed = sourcesDir({
      '.agents/hooks.json': JSON.stringify({
        g: { dialect: 'claude-code', pre_tool_execution: rules },
      }),
    });
    const second = await cli('validate', mixed);
    expect(second.code).toBe(2);
    expect(second.stderr + second.stdout).toMatch(
      /g\.pre_tool_execution: a "claude-code" group uses that agent's event names \(PreToolUse, PostToolUse\)/,
    );
  });
});
