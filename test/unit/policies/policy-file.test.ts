import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/errors.js';
import {
  loadPolicyFile,
  parsePolicyFile,
  safeParsePolicyFile,
  type PolicyEnforcer,
} from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { toolCallContext } from './support.js';

async function effectOf(enforcer: PolicyEnforcer, call: ToolCall): Promise<string> {
  return (await enforcer.decide(call, toolCallContext())).effect;
}

function parseError(text: string, fileName = 'policy.yaml'): UserError {
  const result = safeParsePolicyFile(text, fileName);
  if (result.success) throw new Error('the policy file was accepted');
  return result.error;
}

describe('parsePolicyFile: format', () => {
  it('reads YAML and JSON alike', async () => {
    const yaml = parsePolicyFile('rules:\n  - { effect: deny, tool: code_execution }\n', 'p.yaml');
    const json = parsePolicyFile(
      '{"rules": [{"effect": "deny", "tool": "code_execution"}]}',
      'p.json',
    );
    for (const enforcer of [yaml, json]) {
      expect(await effectOf(enforcer, { name: 'code_execution', args: {} })).toBe('deny');
      expect(await effectOf(enforcer, { name: 'read_file', args: {} })).toBe('none');
    }
  });

  it('names the enforcer after the file unless the file names it', () => {
    expect(parsePolicyFile('rules: [{effect: deny, tool: x}]', 'dir/ops.yml').name).toBe('ops.yml');
    expect(parsePolicyFile('name: ops\nrules: [{effect: deny, tool: x}]', 'dir/ops.yml').name).toBe(
      'ops',
    );
  });

  it('ignores keys that start with "_" at every level, as hooks.json does', () => {
    const text =
      '_comment: top\nrules:\n  - { _why: because, effect: deny, tool: x, when: { _note: n, arg: a, equals: 1 } }\n';
    expect(parsePolicyFile(text, 'p.yaml').rules).toHaveLength(1);
  });

  it('takes workspace_only, which denies file tools outside the paths', async () => {
    const enforcer = parsePolicyFile('workspace_only: [/workspace/src]\n', 'p.yaml');
    expect(await effectOf(enforcer, { name: 'read_file', args: { path: '/etc/passwd' } })).toBe(
      'deny',
    );
    expect(await effectOf(enforcer, { name: 'read_file', args: { path: 'src/a.ts' } })).toBe(
      'none',
    );
  });

  it('returns the enforcer from safeParsePolicyFile on success', () => {
    const result = safeParsePolicyFile('rules: [{effect: allow, tool: "*"}]', 'p.yaml');
    expect(result.success && result.data.rules).toEqual([
      expect.objectContaining({ effect: 'allow', tool: '*' }),
    ]);
  });
});

describe('parsePolicyFile: declarative conditions', () => {
  const enforcer = parsePolicyFile(
    [
      'rules:',
      '  - effect: deny',
      '    tool: code_execution',
      "    when: { arg: code, matches: '(?i)\\bcurl\\b' }",
      '  - effect: deny',
      '    tool: read_file',
      '    when: { not: { arg: path, matches: "^notes/" } }',
      '  - effect: deny',
      '    tool: write_file',
      '    when:',
      '      any:',
      '        - { arg: path, equals: .env }',
      "        - all: [{ arg: path, matches: '\\.key$' }, { arg: content, matches: PRIVATE }]",
      '  - effect: deny',
      '    tool: list_files',
      '    when: { arg: depth, matches: "^[5-9]$" }',
    ].join('\n'),
    'p.yaml',
  );

  it.each([
    [{ name: 'code_execution', args: { code: 'CURL http://x' } }, 'deny'],
    [{ name: 'code_execution', args: { code: 'curly braces' } }, 'none'],
    [{ name: 'read_file', args: { path: 'notes/a.md' } }, 'none'],
    [{ name: 'read_file', args: { path: 'secret.md' } }, 'deny'],
    [{ name: 'write_file', args: { path: '.env', content: '' } }, 'deny'],
    [{ name: 'write_file', args: { path: 'a.key', content: 'PRIVATE KEY' } }, 'deny'],
    [{ name: 'write_file', args: { path: 'a.key', content: 'public' } }, 'none'],
    [{ name: 'list_files', args: { depth: 7 } }, 'deny'],
    [{ name: 'list_files', args: {} }, 'none'],
  ])('%j → %s', async (call, effect) => {
    expect(await effectOf(enforcer, call)).toBe(effect);
  });
});

describe('parsePolicyFile: errors name the file, the JSON path and the rule', () => {
  it('an invalid RE2 pattern', () => {
    const error = parseError(
      'rules:\n  - { effect: deny, tool: code_execution, when: { arg: code, matches: "(a" } }\n',
    );
    expect(error.code).toBe('invalid_argument');
    expect(error.details.field).toBe('$.rules[0].when.matches');
    expect(error.message).toContain(
      'policy file policy.yaml: $.rules[0].when.matches: the deny rule for "code_execution": not a valid RE2 pattern',
    );
  });

  it('a misspelt key, with the key it resembles', () => {
    const error = parseError('rules:\n  - { efect: deny, tool: x }\n');
    expect(error.message).toContain(
      '$.rules[0]: rule 1: unknown key "efect" (did you mean "effect"?)',
    );
    expect(error.message).toContain('$.rules[0].effect: rule 1: is required');
  });

  it('a shell glob as the tool pattern', () => {
    const error = parseError('rules:\n  - { effect: allow, tool: "*_file" }\n');
    expect(error.details.field).toBe('$.rules[0].tool');
    expect(error.message).toContain('the allow rule for "*_file"');
  });

  it('a condition with two operators or none', () => {
    expect(
      parseError('rules: [{effect: deny, tool: x, when: {arg: a, matches: b, equals: c}}]').message,
    ).toContain(
      'a condition needs exactly one of matches, equals, all, any, not; got matches, equals',
    );
    expect(parseError('rules: [{effect: deny, tool: x, when: {arg: a}}]').details.field).toBe(
      '$.rules[0].when',
    );
  });

  it('an askUser rule, which a file cannot give a handler', () => {
    const error = parseError(
      'rules:\n  - { effect: allow, tool: "*" }\n  - { effect: ask_user, tool: code_execution }\n',
    );
    expect(error.details.field).toBe('$.rules[1].effect');
    expect(error.message).toContain(
      'the ask_user rule for "code_execution": "ask_user" needs an approval handler',
    );
  });

  it('accepts an askUser rule when the loader supplies the handler', async () => {
    const enforcer = parsePolicyFile(
      'rules: [{effect: ask_user, tool: code_execution}]',
      'p.yaml',
      {
        askUser: () => true,
      },
    );
    expect(await effectOf(enforcer, { name: 'code_execution', args: {} })).toBe('allow');
  });

  it.each([
    ['an empty file', ''],
    ['an empty object', '{}'],
    ['an empty rule list', 'rules: []'],
  ])('%s: an empty policy would silently enforce nothing', (_what, text) => {
    expect(parseError(text).message).toMatch(/policy file policy.yaml: \$: /);
  });

  it('bad YAML, bad JSON and an unknown extension', () => {
    expect(parseError('rules: [\n', 'p.yaml').message).toContain('$: not valid YAML');
    expect(parseError('rules: a\nrules: b\n', 'p.yaml').message).toContain('not valid YAML');
    expect(parseError('{"rules": [', 'p.json').message).toContain('$: not valid JSON');
    expect(parseError('{}', 'p.toml').message).toContain('must end in .json, .yaml or .yml');
  });

  it('parsePolicyFile throws what safeParsePolicyFile returns', () => {
    expect(() => parsePolicyFile('{}', 'p.json')).toThrow(UserError);
  });
});

describe('loadPolicyFile', () => {
  it('reads the file from disk', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'hookbox-policy-'));
    const path = join(directory, 'ops.json');
    await writeFile(path, JSON.stringify({ rules: [{ effect: 'deny', tool: 'write_file' }] }));
    const enforcer = await loadPolicyFile(path);
    expect(await effectOf(enforcer, { name: 'write_file', args: {} })).toBe('deny');
  });

  it('reports a file it cannot read as the caller’s mistake', async () => {
    await expect(loadPolicyFile('/nonexistent/policy.yaml')).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('cannot read policy file /nonexistent/policy.yaml'),
    });
  });
});
