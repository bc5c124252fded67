import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/errors.js';
import { allow, PolicyEnforcer, workspaceOnly } from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { toolCallContext } from './support.js';

const enforcer = new PolicyEnforcer({ rules: [workspaceOnly(['/workspace/project', 'shared'])] });

async function effectOf(call: ToolCall): Promise<string> {
  return (await enforcer.decide(call, toolCallContext())).effect;
}

describe('workspaceOnly', () => {
  it.each([
    ['an allowed directory itself', { name: 'list_files', args: { path: '/workspace/project' } }],
    ['a file under it', { name: 'read_file', args: { path: '/workspace/project/src/a.ts' } }],
    [
      'a relative path, resolved against /workspace',
      { name: 'write_file', args: { path: 'shared/notes.md', content: '' } },
    ],
    [
      'a path whose .. stays inside',
      { name: 'read_file', args: { path: '/workspace/project/src/../README.md' } },
    ],
  ])('has no objection to %s', async (_what, call) => {
    expect(await effectOf(call)).toBe('none');
  });

  it.each([
    ['an absolute path elsewhere', { name: 'read_file', args: { path: '/etc/passwd' } }],
    ['a .. that climbs out', { name: 'read_file', args: { path: 'project/../../etc/passwd' } }],
    [
      'a sibling sharing a name prefix',
      { name: 'read_file', args: { path: '/workspace/project-secrets/key' } },
    ],
    ['the workspace root above the allowed paths', { name: 'list_files', args: { path: '.' } }],
    ['a missing path', { name: 'delete_file', args: {} }],
    ['a path that is not text', { name: 'read_file', args: { path: ['/workspace/project'] } }],
    ['a path with a NUL', { name: 'read_file', args: { path: '/workspace/project/a\0b' } }],
  ])('denies %s', async (_what, call) => {
    expect(await effectOf(call)).toBe('deny');
  });

  it.each([
    ['view_file', 'AbsolutePath'],
    ['write_to_file', 'TargetFile'],
    ['replace_file_content', 'TargetFile'],
    ['list_dir', 'DirectoryPath'],
    ['find_by_name', 'SearchDirectory'],
    ['grep_search', 'SearchPath'],
    ['delete_file', 'TargetFile'],
    ['delete_file', 'AbsolutePath'],
    ['delete_file', 'path'],
  ])('checks %s through its %s argument (2026-09 tools)', async (tool, argument) => {
    expect(await effectOf({ name: tool, args: { [argument]: '/workspace/project/x' } })).toBe(
      'none',
    );
    expect(await effectOf({ name: tool, args: { [argument]: '/workspace/other/x' } })).toBe('deny');
  });

  it('checks every path a tool is given, so a second name cannot smuggle a path out', async () => {
    const call = {
      name: 'delete_file',
      args: { path: '/workspace/project/a', TargetFile: '/etc/passwd' },
    };
    expect(await effectOf(call)).toBe('deny');
  });

  it('leaves other tools alone', async () => {
    expect(await effectOf({ name: 'code_execution', args: { code: 'cat /etc/passwd' } })).toBe(
      'none',
    );
  });

  it('wins over an allow rule for the same tool, since deny beats allow', async () => {
    const withAllow = new PolicyEnforcer({
      rules: [workspaceOnly(['/workspace/project']), allow('read_file')],
    });
    const decision = await withAllow.decide(
      { name: 'read_file', args: { path: '/etc/passwd' } },
      toolCallContext(),
    );
    expect(decision).toMatchObject({
      effect: 'deny',
      reason: 'file tools may only use paths under /workspace/project',
    });
  });

  it('refuses an empty list of allowed paths', () => {
    expect(() => workspaceOnly([])).toThrow(UserError);
    expect(() => workspaceOnly([''])).toThrow(/allowedPaths\[0\]/);
  });
});
