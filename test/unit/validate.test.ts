import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function validate(files: Record<string, string>, path = '', extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-validate-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  let stdout = '';
  let stderr = '';
  const code = await main(['validate', join(dir, path), ...extra], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
  });
  return { code, stdout, stderr };
}

const hooks = (command: string, matcher = 'code_execution') =>
  JSON.stringify({
    g: { pre_tool_execution: [{ matcher, hooks: [{ type: 'command', command }] }] },
  });

describe('hookbox validate', () => {
  it('accepts a sources folder whose hooks.json names scripts that exist', async () => {
    const result = await validate({
      '.agents/hooks.json': hooks('python3 /.agents/hooks-scripts/gate.py'),
      '.agents/hooks-scripts/gate.py': 'print(1)\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ok: .*hooks\.json: 1 group\(s\), 1 rule\(s\)/m);
  });

  it('accepts a hooks.json file given directly', async () => {
    expect((await validate({ 'hooks.json': hooks('true') }, 'hooks.json')).code).toBe(0);
  });

  it('refuses a glob matcher with the hint', async () => {
    const result = await validate({ '.agents/hooks.json': hooks('true', '*_file') });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('g.pre_tool_execution[0].matcher');
    expect(result.stdout).toContain('did you mean ".*_file"?');
  });

  it('reports a script that is not among the sources', async () => {
    const result = await validate({
      '.agents/hooks.json': hooks('python3 /.agents/hooks-scripts/missing.py'),
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(
      'names /.agents/hooks-scripts/missing.py, which is not among the sources',
    );
  });

  it('reports a script run directly that has no #! line', async () => {
    const result = await validate({
      '.agents/hooks.json': hooks('/.agents/gate.sh'),
      '.agents/gate.sh': 'echo hi\n',
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('does not start with "#!"');
  });

  it('reports a Python syntax error in a named script', async () => {
    const result = await validate({
      '.agents/hooks.json': hooks('python3 /.agents/gate.py'),
      '.agents/gate.py': 'def broken(:\n',
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/Python syntax error/);
  });

  it('refuses what hookbox call refuses: hooks.json at the top of a sources folder', async () => {
    const result = await validate({
      'hooks.json': hooks('python3 /.agents/hooks-scripts/gate.py'),
      'hooks-scripts/gate.py': 'print(1)\n',
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/error: .*hooks\.json is at the top of .*hookbox call --sources/);
    // The .agents folder itself is fine.
    const agents = await validate(
      {
        '.agents/hooks.json': hooks('python3 /.agents/hooks-scripts/gate.py'),
        '.agents/hooks-scripts/gate.py': 'print(1)\n',
      },
      '.agents',
    );
    expect(agents.code).toBe(0);
  });

  it('reports a script run directly whose #! line ends in CR', async () => {
    const result = await validate({
      '.agents/hooks.json': hooks('/.agents/hooks-scripts/gate.py'),
      '.agents/hooks-scripts/gate.py': '#!/usr/bin/env python3\r\nprint(1)\r\n',
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/gate\.py: its "#!" line ends in CR \(Windows line endings\)/);
  });

  it('a path with no hooks.json is bad input', async () => {
    const result = await validate({ 'workspace/a': 'x' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no hooks\.json/);
  });

  it('--vocabulary 2026-09 warns about a matcher naming a 2026-05 tool, and keeps exit 0', async () => {
    const result = await validate(
      { '.agents/hooks.json': hooks('true', 'read_file|view_file') },
      '',
      ['--vocabulary', '2026-09'],
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/warning: .*read_file/);
  });

  it('--vocabulary with an unknown id is bad input', async () => {
    const result = await validate({ '.agents/hooks.json': hooks('true') }, '', [
      '--vocabulary',
      '2027-01',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--vocabulary');
  });
});
