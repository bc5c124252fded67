import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCommand } from '../../src/cli/commands/validate.js';
import { UserError } from '../../src/errors/index.js';
import { matcherWarnings, topLevelAlternatives } from '../../src/hooks/matcher-coverage.js';

/** `hookbox validate DIR [--vocabulary ID] --json` on a hooks.json with one rule per matcher. */
async function validate(matchers: (string | undefined)[], vocabulary?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-validate-vocabulary-'));
  mkdirSync(join(dir, '.agents'));
  const rules = matchers.map((matcher) => ({
    ...(matcher === undefined ? {} : { matcher }),
    hooks: [{ type: 'command', command: 'true' }],
  }));
  writeFileSync(
    join(dir, '.agents', 'hooks.json'),
    JSON.stringify({ g: { pre_tool_execution: rules } }),
  );
  let stdout = '';
  const code = await validateCommand(
    dir,
    { json: true, ...(vocabulary ? { vocabulary } : {}) },
    { stdout: (t) => (stdout += t), stderr: () => {}, isTty: false },
  );
  const report = JSON.parse(stdout) as {
    valid: boolean;
    findings: { level: string; where: string; message: string }[];
  };
  return { code, ...report };
}

describe('hookbox validate --vocabulary: matchers against a vocabulary', () => {
  it('warns (exit 0) when a matcher names a tool the vocabulary does not have', async () => {
    const result = await validate(['read_file', 'view_file|read_file|list_files'], '2026-09');
    expect(result.code).toBe(0);
    expect(result.valid).toBe(true);
    expect(result.findings).toEqual([
      {
        level: 'warning',
        where: 'g.pre_tool_execution[0].matcher',
        message:
          'matcher "read_file": vocabulary 2026-09 has no tool "read_file" (it is a 2026-05 tool), so under 2026-09 it never fires; the 2026-09 tool for that job is "view_file"',
      },
      {
        level: 'warning',
        where: 'g.pre_tool_execution[1].matcher',
        message:
          'matcher "view_file|read_file|list_files": vocabulary 2026-09 has no tool "read_file" (it is a 2026-05 tool), so under 2026-09 it never fires; the 2026-09 tool for that job is "view_file"',
      },
      {
        level: 'warning',
        where: 'g.pre_tool_execution[1].matcher',
        message:
          'matcher "view_file|read_file|list_files": vocabulary 2026-09 has no tool "list_files" (it is a 2026-05 tool), so under 2026-09 it never fires; the 2026-09 tool for that job is "list_dir"',
      },
    ]);
  });

  it('the other way round under 2026-05', async () => {
    const result = await validate(['view_file|write_to_file|replace_file_content'], '2026-05');
    expect(result.code).toBe(0);
    expect(result.findings.map((finding) => finding.message)).toEqual([
      expect.stringContaining('vocabulary 2026-05 has no tool "view_file"'),
      expect.stringContaining('vocabulary 2026-05 has no tool "write_to_file"'),
      expect.stringContaining('vocabulary 2026-05 has no tool "replace_file_content"'),
    ]);
  });

  it('notes that .*_file does not cover replace_file_content or list_dir under 2026-09', async () => {
    const result = await validate(['.*_file'], '2026-09');
    expect(result.code).toBe(0);
    expect(result.findings).toEqual([
      {
        level: 'warning',
        where: 'g.pre_tool_execution[0].matcher',
        message:
          'matcher ".*_file": under 2026-09 it matches view_file, write_to_file, delete_file but not replace_file_content, list_dir, find_by_name, grep_search, which also work on files; to gate every file tool name them: "view_file|write_to_file|replace_file_content|list_dir|delete_file|find_by_name|grep_search"',
      },
    ]);
  });

  it('a regular expression that matches no tool of the vocabulary', async () => {
    const result = await validate(['read_.*', 'code_execution|(read|write)_file'], '2026-09');
    expect(result.findings.map((finding) => finding.message)).toEqual([
      'matcher "read_.*": it matches no tool of vocabulary 2026-09, so it never fires',
      'matcher "code_execution|(read|write)_file": the alternative "(read|write)_file" matches no tool of vocabulary 2026-09, so it never fires',
    ]);
  });

  it('nothing to say about exact names it has, catch-alls, and complete alternations', async () => {
    const all =
      'code_execution|view_file|write_to_file|replace_file_content|list_dir|delete_file|find_by_name|grep_search';
    const result = await validate(
      ['view_file', 'code_execution', '*', '', '.*', undefined, all, 'view_file|write_to_file'],
      '2026-09',
    );
    expect(result.findings).toEqual([]);
  });

  it('without --vocabulary: names no vocabulary has, and names only one has', async () => {
    const result = await validate(['read_files', 'read_file', 'code_execution']);
    expect(result.code).toBe(0);
    expect(result.findings.map((finding) => finding.message)).toEqual([
      expect.stringMatching(
        /^matcher "read_files": no vocabulary has a tool named "read_files", so the rule never fires/,
      ),
      'matcher "read_file": vocabulary 2026-09 (the default) has no tool "read_file" (it is a 2026-05 tool), so under 2026-09 it never fires; the 2026-09 tool for that job is "view_file"',
    ]);
  });

  it('an unknown vocabulary is bad input', async () => {
    await expect(validate(['x'], '2026-10')).rejects.toThrow(UserError);
    await expect(validate(['x'], '2026-10')).rejects.toThrow(
      '--vocabulary: must be one of 2026-05, 2026-09',
    );
  });
});

describe('matcher analysis', () => {
  it('splits alternatives only at the top level', () => {
    expect(topLevelAlternatives('a|(b|c)|[|]|d\\|e')).toEqual(['a', '(b|c)', '[|]', 'd\\|e']);
  });
  it('under 2026-05, .*_file misses list_files', () => {
    expect(matcherWarnings('.*_file', 'm', '2026-05')).toEqual([
      {
        where: 'm',
        message:
          'matcher ".*_file": under 2026-05 it matches read_file, write_file, delete_file but not list_files, which also work on files; to gate every file tool name them: "read_file|write_file|list_files|delete_file"',
      },
    ]);
  });
});
