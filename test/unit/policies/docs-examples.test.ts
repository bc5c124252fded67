import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// A static import too, so that the type checker checks the example like any other code.
import operatorHooks from '../../../docs/examples/policies/operator-hooks.js';
import {
  ContextStore,
  HookRunner,
  loadHookModule,
  loadPolicyFile,
  type Hook,
} from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { toolCallScope } from './support.js';

const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
const EXAMPLES = join(DOCS, 'examples/policies');

async function runnerFromExamples(): Promise<HookRunner> {
  const policy = await loadPolicyFile(join(EXAMPLES, 'operator-policy.yaml'));
  const hooks = await loadHookModule(join(EXAMPLES, 'operator-hooks.ts'));
  return new HookRunner([policy, ...hooks]);
}

describe('docs/examples/policies/operator-hooks.ts', () => {
  it('is loaded as `hookbox serve --hooks` loads a module, in the order it exports', async () => {
    const hooks = await loadHookModule(join(EXAMPLES, 'operator-hooks.ts'));
    expect(hooks.map((hook) => hook.name)).toEqual(operatorHooks.map((hook: Hook) => hook.name));
  });

  it('rewrites bash code and keeps the original arguments', async () => {
    const runner = await runnerFromExamples();
    const outcome = await runner.beforeToolCall(toolCallScope(), {
      name: 'code_execution',
      args: { code: 'ls' },
    });
    expect(outcome.blocked).toBe(false);
    expect(outcome.args).toEqual({ code: 'set -euo pipefail\nls' });
    expect(outcome.originalArgs).toEqual({ code: 'ls' });
    expect(outcome.rewrittenBy).toEqual(['strict-bash']);
  });

  it('refuses the 21st call of a turn', async () => {
    const runner = await runnerFromExamples();
    const interaction = new ContextStore().createChild('interaction');
    const call: ToolCall = { name: 'read_file', args: { path: 'notes.md' } };
    const outcomes = [];
    for (let index = 0; index < 21; index++) {
      outcomes.push(
        await runner.beforeToolCall(
          toolCallScope({ store: interaction.createChild('call') }),
          call,
        ),
      );
    }
    expect(outcomes.slice(0, 20).every((outcome) => !outcome.blocked)).toBe(true);
    expect(outcomes[20]).toMatchObject({
      blocked: true,
      reason: 'this turn has used its 20 tool calls',
    });
  });

  it('redacts secrets from what the model sees while the raw result is kept', async () => {
    const runner = await runnerFromExamples();
    const raw = { exit_code: 0, stdout: 'AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP\n', stderr: '' };
    const outcome = await runner.afterToolCall(
      toolCallScope(),
      { name: 'code_execution', args: { code: 'env' } },
      raw,
    );
    expect(outcome.presented['stdout']).toBe('AWS_ACCESS_KEY_ID=[redacted]\n');
    expect(outcome.raw['stdout']).toBe('AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP\n');
  });

  it('adds a hint to "not found" errors', async () => {
    const runner = await runnerFromExamples();
    const outcome = await runner.onToolError(
      toolCallScope(),
      { name: 'read_file', args: { path: 'x' } },
      'not found: x',
    );
    expect(outcome.message).toBe('not found: x (relative paths start at /workspace)');
  });
});

describe('docs/examples/policies/operator-policy.yaml', () => {
  it.each([
    ['code_execution', { code: 'rm -rf /' }, 'Deleting the root directory is not allowed.'],
    [
      'code_execution',
      { code: 'import socket', language: 'python' },
      'Network code is not allowed in this sandbox.',
    ],
    ['delete_file', { path: 'notes.md' }, 'Deleting files is not allowed; ask the user to do it.'],
    ['read_file', { path: '/etc/passwd' }, 'file tools may only use paths under /workspace'],
  ])('blocks %s %j before any other hook runs', async (name, args, reason) => {
    const runner = await runnerFromExamples();
    const outcome = await runner.beforeToolCall(toolCallScope(), { name, args });
    expect(outcome).toMatchObject({ blocked: true, reason });
    expect(outcome.records.slice(1).every((record) => record.outcome === 'skipped')).toBe(true);
  });

  it.each([
    ['code_execution', { code: 'rm -rf ./build' }],
    ['code_execution', { code: 'import json', language: 'python' }],
    ['read_file', { path: 'notes.md' }],
  ])('has no objection to %s %j', async (name, args) => {
    const runner = await runnerFromExamples();
    expect((await runner.beforeToolCall(toolCallScope(), { name, args })).blocked).toBe(false);
  });
});

describe('docs/examples/policies/read-only-policy.json', () => {
  it('allows only the read-only tools', async () => {
    const runner = new HookRunner([await loadPolicyFile(join(EXAMPLES, 'read-only-policy.json'))]);
    const decide = async (name: string): Promise<boolean> =>
      (await runner.beforeToolCall(toolCallScope(), { name, args: {} })).blocked;
    for (const tool of [
      'read_file',
      'list_files',
      'view_file',
      'list_dir',
      'find_by_name',
      'grep_search',
    ]) {
      expect(await decide(tool)).toBe(false);
    }
    for (const tool of ['write_file', 'delete_file', 'write_to_file', 'code_execution']) {
      expect(await decide(tool)).toBe(true);
    }
  });
});

describe('docs/policies.md', () => {
  it('shows every example file verbatim, so the tested files are the documented ones', async () => {
    const markdown = await readFile(join(DOCS, 'policies.md'), 'utf8');
    const shown = new Map<string, string>();
    for (const match of markdown.matchAll(/<!-- example: (\S+) -->\n```\w*\n([\s\S]*?)```/g)) {
      shown.set(match[1] ?? '', match[2] ?? '');
    }
    const files = await readdir(EXAMPLES);
    expect([...shown.keys()].sort()).toEqual(
      files.map((file) => `examples/policies/${file}`).sort(),
    );
    for (const [path, text] of shown) {
      expect(text, path).toBe(await readFile(join(DOCS, path), 'utf8'));
    }
  });
});
