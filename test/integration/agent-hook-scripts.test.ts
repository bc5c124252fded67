import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fetchJson, scriptedRequest, useServer, type InteractionBody } from './api-helpers.js';
import { cli, sourcesDir } from './cli-helpers.js';

/**
 * Real, published hook scripts written for Codex, Copilot, Cursor, OpenHands and Gemini CLI (two
 * per agent, from different projects), copied verbatim under
 * test/integration/agent-hooks/ (each with its source and licence beside it), run unchanged as
 * gates in real sandboxes through `hookbox call` and through the API (docs/dialects.md): each
 * block case is blocked with the script's own reason, each allow case runs.
 */
const server = useServer();
const HERE = join(import.meta.dirname, 'agent-hooks');
const script = (path: string) => readFileSync(join(HERE, path), 'utf8');

const files = {
  '.agents/hooks.json': JSON.stringify({
    'copilot-guards': {
      dialect: 'copilot',
      preToolUse: [
        {
          hooks: [
            { type: 'command', command: 'bash /.agents/hooks-scripts/pre-force-push-block.sh' },
            { type: 'command', command: 'bash /.agents/hooks-scripts/enforce-file-permissions.sh' },
          ],
        },
      ],
    },
    // Groups run in file order and the first deny ends the call (docs/dialects.md), so these two
    // come before cursor-block-git, which denies every git command and asks for every gh one.
    'openhands-guardrails': {
      dialect: 'openhands',
      PreToolUse: [
        {
          matcher: 'terminal',
          hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/guardrails.sh' }],
        },
      ],
    },
    'codex-guards': {
      dialect: 'codex',
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/pre-tool-use.sh' }],
        },
        {
          matcher: 'Edit|Write|apply_patch',
          hooks: [
            { type: 'command', command: 'bash /.agents/hooks-scripts/block-protected-files.sh' },
          ],
        },
      ],
    },
    'gemini-cli-guards': {
      dialect: 'gemini-cli',
      BeforeTool: [
        {
          matcher: 'run_shell_command',
          hooks: [
            { type: 'command', command: 'bash /.agents/hooks-scripts/prevent-admin-flag.sh' },
          ],
        },
      ],
    },
    'cursor-block-git': {
      dialect: 'cursor',
      beforeShellExecution: [
        { hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/block-git.sh' }] },
      ],
    },
    'openhands-block-dangerous': {
      dialect: 'openhands',
      PreToolUse: [
        {
          matcher: 'terminal',
          hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/block_dangerous.sh' }],
        },
      ],
    },
    'cursor-protected-path': {
      dialect: 'cursor',
      preToolUse: [
        {
          matcher: '.*',
          hooks: [
            { type: 'command', command: 'node /.agents/hooks-scripts/protected-path-guard.js' },
          ],
        },
      ],
    },
    'gemini-cli-secrets': {
      dialect: 'gemini-cli',
      BeforeTool: [
        {
          matcher: 'write_file|replace',
          hooks: [{ type: 'command', command: 'bash /.agents/hooks-scripts/block-secrets.sh' }],
        },
      ],
    },
  }),
  '.agents/hooks-scripts/pre-force-push-block.sh': script(
    'copilot/htekdev-vidpipe/pre-force-push-block.sh',
  ),
  '.agents/hooks-scripts/enforce-file-permissions.sh': script(
    'copilot/github-docs/enforce-file-permissions.sh',
  ),
  '.agents/hooks-scripts/guardrails.sh': script('openhands/jikig-ai-soleur/guardrails.sh'),
  '.agents/hooks-scripts/pre-tool-use.sh': script('codex/csw-protospy/pre-tool-use.sh'),
  '.agents/hooks-scripts/block-protected-files.sh': script(
    'codex/mashharuki-shipaton2026/block-protected-files.sh',
  ),
  '.agents/hooks-scripts/block-git.sh': script('cursor/hamzafer-cursor-hooks/block-git.sh'),
  '.agents/hooks-scripts/protected-path-guard.js': script(
    'cursor/ruizhernandez-cursor-hooks-minimal-test/protected-path-guard.js',
  ),
  '.agents/hooks-scripts/block_dangerous.sh': script(
    'openhands/openhands-software-agent-sdk/block_dangerous.sh',
  ),
  '.agents/hooks-scripts/block-secrets.sh': script('gemini-cli/gemini-cli-docs/block-secrets.sh'),
  '.agents/hooks-scripts/prevent-admin-flag.sh': script(
    'gemini-cli/zookanalytics-claude-devcontainer/prevent-admin-flag.sh',
  ),
};

/** prevent-admin-flag.sh's own message: its stderr heredoc, with the blocked command filled in. */
const adminFlagReason = (command: string) =>
  /cat >&2 <<EOF\n([\s\S]*?)\nEOF/
    .exec(files['.agents/hooks-scripts/prevent-admin-flag.sh'])![1]!
    .replace('$command', command);

type Case = { tool: string; args: Record<string, unknown>; blockedBy?: [string, string] };
const CASES: Case[] = [
  {
    tool: 'code_execution',
    args: { code: 'git push --force origin main' },
    blockedBy: [
      'copilot-guards',
      'Force pushing rewrites remote history and breaks collaborators. Create a new fixup commit instead.',
    ],
  },
  {
    tool: 'replace_file_content',
    args: {
      TargetFile: 'docs/readme.txt',
      StartLine: 1,
      EndLine: 1,
      TargetContent: 'old',
      ReplacementContent: 'new',
    },
    blockedBy: ['copilot-guards', 'Can only edit files in src/ or test/ directories'],
  },
  {
    tool: 'code_execution',
    args: { code: 'git status' },
    blockedBy: [
      'cursor-block-git',
      "The git command '$command' has been blocked by a project hook. Instead of using raw git commands, please use the 'gh' tool.",
    ],
  },
  {
    tool: 'code_execution',
    args: { code: 'gh issue create --title "Flaky test"' },
    blockedBy: [
      'openhands-guardrails',
      "BLOCKED: gh issue create must include --milestone. Default to 'Post-MVP / Later' for operational issues. Read knowledge-base/product/roadmap.md for feature issues.",
    ],
  },
  {
    tool: 'code_execution',
    args: { code: 'git commit --no-verify -m wip' },
    blockedBy: [
      'codex-guards',
      'Blocked: --no-verify bypasses repository quality gates. Fix the issues instead of bypassing them.',
    ],
  },
  {
    tool: 'write_to_file',
    args: { TargetFile: 'package-lock.json', CodeContent: '{}' },
    blockedBy: [
      'codex-guards',
      'Blocked: lock files should be managed by the package manager, not edited manually.',
    ],
  },
  {
    tool: 'write_to_file',
    args: { TargetFile: 'docs/protected/EVAL-RUBRIC.md', CodeContent: 'rubric v2' },
    blockedBy: [
      'cursor-protected-path',
      "[Protected Path Guard] Blocked: 'Write' targets protected path '/workspace/docs/protected/EVAL-RUBRIC.md'.",
    ],
  },
  {
    tool: 'code_execution',
    args: { code: 'rm -rf /tmp/scratch' },
    blockedBy: ['openhands-block-dangerous', 'rm -rf commands are blocked for safety'],
  },
  {
    tool: 'write_to_file',
    args: { TargetFile: 'config.txt', CodeContent: 'password=hunter2' },
    blockedBy: ['gemini-cli-secrets', 'Potential secret detected'],
  },
  {
    tool: 'code_execution',
    args: { code: 'gh pr merge 7 --admin' },
    blockedBy: ['gemini-cli-guards', adminFlagReason('gh pr merge 7 --admin')],
  },
  { tool: 'code_execution', args: { code: 'echo allowed-by-all' } },
  { tool: 'write_to_file', args: { TargetFile: 'notes.txt', CodeContent: 'nothing to hide' } },
];

describe('published agent hook scripts, unchanged', () => {
  it('through hookbox call: each block case blocked with its own reason, each allow case runs', async () => {
    const dir = sourcesDir(files);
    for (const c of CASES) {
      const run = await cli(
        'call',
        '--sources',
        dir,
        '--tool',
        c.tool,
        '--args',
        JSON.stringify(c.args),
        '--json',
      );
      expect(run.stderr).toBe('');
      const outcome = JSON.parse(run.stdout) as {
        blocked: boolean;
        reason: string | null;
        hooks: { group: string; outcome: string; dialect?: string }[];
      };
      if (c.blockedBy) {
        expect(outcome, JSON.stringify(c)).toMatchObject({ blocked: true, reason: c.blockedBy[1] });
        expect(outcome.hooks.find((hook) => hook.outcome === 'deny')?.group).toBe(c.blockedBy[0]);
      } else {
        expect(outcome, JSON.stringify(c)).toMatchObject({ blocked: false });
        expect(outcome.hooks.length).toBeGreaterThan(0);
        expect(outcome.hooks.every((hook) => hook.outcome === 'allow')).toBe(true);
      }
    }
  }, 300_000); // one `hookbox call`, one fresh sandbox, per case (13 of them)

  it('imported with hookbox hooks import from the files the agents keep, then run', async () => {
    const project = sourcesDir({
      '.cursor/hooks.json': JSON.stringify({
        version: 1,
        hooks: { beforeShellExecution: [{ command: './hooks/block-git.sh' }] },
      }),
      '.cursor/hooks/block-git.sh': files['.agents/hooks-scripts/block-git.sh'],
      '.github/hooks/guards.json': JSON.stringify({
        version: 1,
        hooks: {
          preToolUse: [
            { type: 'command', bash: './scripts/pre-force-push-block.sh', timeoutSec: 10 },
          ],
        },
      }),
      'scripts/pre-force-push-block.sh': files['.agents/hooks-scripts/pre-force-push-block.sh'],
      '.gemini/settings.json': JSON.stringify({
        hooks: {
          BeforeTool: [
            {
              matcher: 'run_shell_command',
              hooks: [
                {
                  name: 'prevent-admin-flag',
                  type: 'command',
                  command: '"$GEMINI_PROJECT_DIR"/.gemini/hooks/prevent-admin-flag.sh',
                  timeout: 10000,
                },
              ],
            },
          ],
        },
      }),
      '.gemini/hooks/prevent-admin-flag.sh': files['.agents/hooks-scripts/prevent-admin-flag.sh'],
    });
    chmodSync(join(project, '.cursor/hooks/block-git.sh'), 0o755);
    chmodSync(join(project, 'scripts/pre-force-push-block.sh'), 0o755);
    chmodSync(join(project, '.gemini/hooks/prevent-admin-flag.sh'), 0o755);
    const out = sourcesDir({});
    for (const file of [
      '.gemini/settings.json',
      '.github/hooks/guards.json',
      '.cursor/hooks.json',
    ]) {
      const imported = await cli('hooks', 'import', join(project, file), '--out', out, '--json');
      expect(imported.code, imported.stderr).toBe(0);
    }
    const call = async (code: string) => {
      const run = await cli(
        'call',
        '--sources',
        out,
        '--tool',
        'code_execution',
        '--args',
        JSON.stringify({ code }),
        '--json',
      );
      expect(run.stderr).toBe('');
      return JSON.parse(run.stdout) as { blocked: boolean; reason: string | null };
    };
    expect(await call('git push -f origin main')).toMatchObject({
      blocked: true,
      reason: CASES[0]!.blockedBy![1],
    });
    expect(await call('git log')).toMatchObject({
      blocked: true,
      reason: CASES[2]!.blockedBy![1],
    });
    expect(await call('gh pr merge 9 --admin')).toMatchObject({
      blocked: true,
      reason: adminFlagReason('gh pr merge 9 --admin'),
    });
    expect(await call('echo fine')).toMatchObject({ blocked: false });
  });

  it('through the API: the same cases in one interaction', async () => {
    const calls = CASES.map((c) =>
      c.tool === 'code_execution'
        ? { type: 'code_execution_call' as const, arguments: { ...c.args, language: 'bash' } }
        : { type: 'tool_call' as const, name: c.tool, arguments: c.args },
    );
    const sources = Object.entries(files).map(([target, content]) => ({
      type: 'inline' as const,
      target,
      content,
    }));
    const answer = await fetchJson(
      server(),
      'POST',
      '/v1beta/interactions',
      scriptedRequest(calls, sources),
    );
    expect(answer.status, answer.text).toBe(200);
    const results = (answer.json as InteractionBody).steps.filter((step) =>
      step.type.endsWith('_result'),
    );
    expect(results).toHaveLength(CASES.length);
    CASES.forEach((c, i) => {
      if (c.blockedBy) expect(results[i]).toMatchObject({ blocked: true, result: c.blockedBy[1] });
      else expect(results[i]).toMatchObject({ blocked: false });
    });
    expect(JSON.stringify(results.at(-2))).toContain('allowed-by-all');
  });
});
