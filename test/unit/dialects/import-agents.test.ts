import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importHooks } from '../../../src/hooks/import/import-hooks.js';

/** `hookbox hooks import` of each agent's file as the agent keeps it (docs/dialects.md, "Import"). */

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-import-agents-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function imported(file: string, dir: string) {
  const out = mkdtempSync(join(tmpdir(), 'hookbox-import-out-'));
  const report = importHooks(join(dir, file), out);
  const hooks = JSON.parse(readFileSync(join(out, '.agents/hooks.json'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  return { report, hooks, paths: report.notCarried.map((item) => item.path) };
}

const GUARD = '#!/bin/sh\nexit 0\n';

describe('hooks import of each agent', () => {
  it('Codex .codex/hooks.json: Claude Code shape, no timeout means hookbox’s longest', () => {
    const dir = project({
      '.codex/hooks.json': JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: '.codex/hooks/guard.sh' }] },
          ],
          SessionStart: [{ hooks: [{ type: 'command', command: 'true' }] }],
        },
      }),
      '.codex/hooks/guard.sh': GUARD,
    });
    const { report, hooks, paths } = imported('.codex/hooks.json', dir);
    expect(report).toMatchObject({ format: 'codex-hooks-json', dialect: 'codex', handlers: 1 });
    expect(hooks.codex).toEqual({
      dialect: 'codex',
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [{ type: 'command', command: '/.agents/hooks-scripts/guard.sh', timeout: 600 }],
        },
      ],
    });
    expect(paths).toEqual(['hooks.SessionStart']);
  });

  it('Codex config.toml [hooks], grouped and the older flat [[hooks.pre_tool_use]] with an argv command', () => {
    const dir = project({
      '.codex/config.toml': [
        'model = "gpt-5"',
        '[[hooks.PreToolUse]]',
        'matcher = "Bash"',
        '[[hooks.PreToolUse.hooks]]',
        'type = "command"',
        'command = ".codex/hooks/guard.sh"',
        'timeout = 5',
        '[[hooks.post_tool_use]]',
        'command = ["bash", ".codex/hooks/guard.sh"]',
        'matcher = "apply_patch"',
        'status_message = "checking"',
      ].join('\n'),
      '.codex/hooks/guard.sh': GUARD,
    });
    const { report, hooks, paths } = imported('.codex/config.toml', dir);
    expect(report).toMatchObject({ format: 'codex-config-toml', dialect: 'codex', handlers: 2 });
    expect(hooks.codex!.PreToolUse).toEqual([
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: '/.agents/hooks-scripts/guard.sh', timeout: 5 }],
      },
    ]);
    expect(hooks.codex!.PostToolUse).toEqual([
      {
        matcher: 'apply_patch',
        hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/guard.sh', timeout: 600 }],
      },
    ]);
    expect(paths).toContain('hooks.post_tool_use.command');
  });

  it('a config.toml that is not TOML, or has no [hooks], is refused naming the file', () => {
    const dir = project({ 'bad/config.toml': 'hooks = [', 'none/config.toml': 'model = "x"' });
    expect(() => importHooks(join(dir, 'bad/config.toml'), dir)).toThrow(/not valid TOML/);
    expect(() => importHooks(join(dir, 'none/config.toml'), dir)).toThrow(/\[hooks\] table/);
  });

  it('Copilot .github/hooks/*.json: bash handlers, timeoutSec; cwd, env and PowerShell-only ones reported', () => {
    const dir = project({
      '.github/hooks/guard.json': JSON.stringify({
        version: 1,
        hooks: {
          preToolUse: [
            {
              type: 'command',
              bash: './scripts/guard.sh',
              powershell: './scripts/guard.ps1',
              cwd: '.',
              timeoutSec: 15,
            },
            { type: 'command', powershell: './scripts/only.ps1' },
          ],
          sessionStart: [{ type: 'command', bash: 'echo hi' }],
        },
      }),
      'scripts/guard.sh': GUARD,
    });
    const { report, hooks, paths } = imported('.github/hooks/guard.json', dir);
    expect(report).toMatchObject({ format: 'copilot', dialect: 'copilot', handlers: 1 });
    expect(hooks.copilot!.preToolUse).toEqual([
      { hooks: [{ type: 'command', command: '/.agents/hooks-scripts/guard.sh', timeout: 15 }] },
    ]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'hooks.preToolUse[0].cwd',
        'hooks.preToolUse[1].powershell',
        'hooks.sessionStart',
      ]),
    );
  });

  it('Cursor .cursor/hooks.json: flat handlers with matcher, failClosed becomes on_error deny', () => {
    const dir = project({
      '.cursor/hooks.json': JSON.stringify({
        version: 1,
        hooks: {
          beforeShellExecution: [{ command: './hooks/block-git.sh', failClosed: true }],
          preToolUse: [{ command: './hooks/block-git.sh', matcher: 'Shell', timeout: 5 }],
          stop: [{ command: './hooks/block-git.sh' }],
        },
      }),
      '.cursor/hooks/block-git.sh': GUARD,
    });
    const { report, hooks, paths } = imported('.cursor/hooks.json', dir);
    expect(report).toMatchObject({ format: 'cursor', dialect: 'cursor', handlers: 2 });
    expect(hooks.cursor).toEqual({
      dialect: 'cursor',
      beforeShellExecution: [
        {
          hooks: [
            { type: 'command', command: '/.agents/hooks-scripts/block-git.sh', on_error: 'deny' },
          ],
        },
      ],
      preToolUse: [
        {
          matcher: 'Shell',
          hooks: [{ type: 'command', command: '/.agents/hooks-scripts/block-git.sh', timeout: 5 }],
        },
      ],
    });
    expect(paths).toEqual(['hooks.stop']);
  });

  it('Gemini CLI .gemini/settings.json: BeforeTool, $GEMINI_PROJECT_DIR, millisecond timeouts', () => {
    const dir = project({
      '.gemini/settings.json': JSON.stringify({
        general: { vimMode: true },
        hooks: {
          BeforeTool: [
            {
              matcher: 'write_file|replace',
              hooks: [
                {
                  name: 'secret-scanner',
                  type: 'command',
                  command: '$GEMINI_PROJECT_DIR/.gemini/hooks/block-secrets.sh',
                  timeout: 5000,
                },
              ],
            },
          ],
          BeforeModel: [{ hooks: [{ type: 'command', command: 'true' }] }],
        },
      }),
      '.gemini/hooks/block-secrets.sh': GUARD,
    });
    const { report, hooks, paths } = imported('.gemini/settings.json', dir);
    expect(report).toMatchObject({ format: 'gemini-cli-settings', dialect: 'gemini-cli' });
    expect(hooks['gemini-cli']!.BeforeTool).toEqual([
      {
        matcher: 'write_file|replace',
        hooks: [
          { type: 'command', command: '/.agents/hooks-scripts/block-secrets.sh', timeout: 5 },
        ],
      },
    ]);
    expect(paths).toEqual(['hooks.BeforeModel']);
  });

  it('OpenHands .openhands/hooks.json, with or without the "hooks" wrapper', () => {
    for (const body of [
      { PreToolUse: [{ matcher: 'terminal', hooks: [{ type: 'command', command: 'bash g.sh' }] }] },
      {
        hooks: {
          PreToolUse: [{ matcher: 'terminal', hooks: [{ type: 'command', command: 'bash g.sh' }] }],
        },
      },
    ]) {
      const dir = project({ '.openhands/hooks.json': JSON.stringify(body), 'g.sh': GUARD });
      const { report, hooks } = imported('.openhands/hooks.json', dir);
      expect(report).toMatchObject({ format: 'openhands', dialect: 'openhands', handlers: 1 });
      expect(hooks.openhands!.PreToolUse).toEqual([
        {
          matcher: 'terminal',
          hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/g.sh', timeout: 60 }],
        },
      ]);
    }
  });
});
