import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/index.js';
import { FILE_TOOL_PATH_ARGUMENTS } from '../../src/hooks/controller-hooks/workspace-only.js';
import { toolDeclarations } from '../../src/tools/model-declarations.js';
import {
  DEFAULT_VOCABULARY,
  pathArgumentsByTool,
  resolveToolCall,
  toolsOf,
  vocabularyForCalls,
  type VocabularyId,
} from '../../src/tools/registry.js';
import type { ToolRunSettings } from '../../src/tools/tool-definition.js';
import { vocabularyForAgent } from '../../src/tools/vocabulary-for-agent.js';

function refusal(name: string, args: unknown, vocabulary: VocabularyId = '2026-09'): string {
  try {
    resolveToolCall({ name, args: args as Record<string, unknown> }, vocabulary);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).code).toBe('invalid_tool_call');
    return (error as UserError).message;
  }
  throw new Error(`${name} ${JSON.stringify(args)} was accepted`);
}

describe('2026-09 arguments: refused in the vocabulary’s own names', () => {
  it.each([
    ['view_file', {}, 'view_file: tool_call.args.AbsolutePath: required'],
    ['view_file', { AbsolutePath: 7 }, 'view_file: tool_call.args.AbsolutePath: must be a string'],
    [
      'view_file',
      { AbsolutePath: '' },
      'view_file: tool_call.args.AbsolutePath: must not be empty',
    ],
    [
      'view_file',
      { AbsolutePath: 'a', StartLine: 0 },
      'view_file: tool_call.args.StartLine: must be 1 or more (lines are numbered from 1)',
    ],
    [
      'view_file',
      { AbsolutePath: 'a', StartLine: '3' },
      'view_file: tool_call.args.StartLine: must be a line number (a whole number from 1)',
    ],
    [
      'view_file',
      { AbsolutePath: 'a', EndLine: 2.5 },
      'view_file: tool_call.args.EndLine: must be a whole number',
    ],
    [
      'view_file',
      { AbsolutePath: 'a', StartLine: 4, EndLine: 3 },
      'view_file: tool_call.args.EndLine: must be at least StartLine (4)',
    ],
    [
      'view_file',
      { AbsolutePath: 'a', ContentOffset: -1 },
      'view_file: tool_call.args.ContentOffset: must be 0 or more',
    ],
    [
      'view_file',
      { path: 'a' },
      'view_file: tool_call.args.AbsolutePath: required; tool_call.args.path: unknown key "path"',
    ],
    [
      'view_file',
      { Absolutepath: 'a' },
      'view_file: tool_call.args.AbsolutePath: required; tool_call.args.Absolutepath: unknown key "Absolutepath" (did you mean "AbsolutePath"?)',
    ],
    ['write_to_file', { TargetFile: 'a' }, 'write_to_file: tool_call.args.CodeContent: required'],
    [
      'write_to_file',
      { TargetFile: 'a', CodeContent: 'x', Overwrite: 'yes' },
      'write_to_file: tool_call.args.Overwrite: must be true or false',
    ],
    [
      'replace_file_content',
      { TargetFile: 'a', StartLine: 2, EndLine: 1, TargetContent: '', ReplacementContent: '' },
      'replace_file_content: tool_call.args.EndLine: must be at least StartLine (2)',
    ],
    [
      'replace_file_content',
      { TargetFile: 'a', StartLine: 1, EndLine: 1, TargetContent: 'x' },
      'replace_file_content: tool_call.args.ReplacementContent: required',
    ],
    [
      'list_dir',
      { path: '.' },
      'list_dir: tool_call.args.DirectoryPath: required; tool_call.args.path: unknown key "path"',
    ],
    [
      'delete_file',
      {},
      'delete_file: tool_call.args.TargetFile: required (the file to delete; AbsolutePath or path are accepted too)',
    ],
    [
      'delete_file',
      { AbsolutePath: 'a', path: 'b' },
      'delete_file: tool_call.args.path: give only one of TargetFile, AbsolutePath, path (also given: AbsolutePath)',
    ],
    [
      'find_by_name',
      { SearchDirectory: '.', Pattern: '*', MaxDepth: 0 },
      'find_by_name: tool_call.args.MaxDepth: must be 1 or more (1: only the entries directly in SearchDirectory)',
    ],
    [
      'grep_search',
      { SearchPath: '.', Query: '' },
      'grep_search: tool_call.args.Query: must not be empty',
    ],
    [
      'grep_search',
      { SearchPath: '.', Query: 'x', IsRegex: 1 },
      'grep_search: tool_call.args.IsRegex: must be true or false',
    ],
    [
      'code_execution',
      { language: 'bash' },
      'code_execution: tool_call.args.code: required (the code to run; "command" is accepted for it too)',
    ],
    [
      'code_execution',
      { code: 'a', command: 'b' },
      'code_execution: tool_call.args.command: give only one of code, command (also given: code)',
    ],
    [
      'code_execution',
      { code: 'a', timeout_seconds: 0 },
      'code_execution: tool_call.args.timeout_seconds: must be more than 0 seconds',
    ],
    [
      'view_file',
      'a',
      'view_file: tool_call.args: Invalid input: expected object, received string',
    ],
  ])('%s %j', (name, args, message) => {
    expect(refusal(name, args)).toBe(message);
  });

  it('an unknown tool names the vocabulary’s tools, and the counterpart of a 2026-05 name', () => {
    expect(refusal('read_file', { path: 'a' })).toBe(
      'tool_call.name: unknown tool "read_file" (vocabulary 2026-09 has code_execution, view_file, write_to_file, replace_file_content, list_dir, delete_file, find_by_name, grep_search); read_file is a tool of vocabulary 2026-05 (in 2026-09 use view_file)',
    );
    expect(refusal('list_dir', { DirectoryPath: '.' }, '2026-05')).toMatch(
      /list_dir is a tool of vocabulary 2026-09 \(in 2026-05 use list_files\)$/,
    );
    expect(refusal('grep_search', { SearchPath: '.', Query: 'x' }, '2026-05')).toMatch(
      /grep_search is a tool of vocabulary 2026-09$/,
    );
  });

  it('accepts the documented forms', () => {
    for (const [name, args] of [
      ['code_execution', { code: 'ls' }],
      ['code_execution', { command: 'ls', timeout_seconds: 2.5, language: 'sh' }],
      ['view_file', { AbsolutePath: '/workspace/a', StartLine: 2, EndLine: 2, ContentOffset: 0 }],
      ['write_to_file', { TargetFile: 'a', CodeContent: '', Overwrite: true, Description: 'd' }],
      [
        'replace_file_content',
        { TargetFile: 'a', StartLine: 1, EndLine: 3, TargetContent: 'x', ReplacementContent: '' },
      ],
      ['list_dir', { DirectoryPath: '/' }],
      ['delete_file', { TargetFile: 'a' }],
      ['delete_file', { AbsolutePath: 'a' }],
      ['delete_file', { path: 'a' }],
      ['find_by_name', { SearchDirectory: '.', Pattern: '**/*.py', MaxDepth: 3 }],
      ['grep_search', { SearchPath: '.', Query: 'a.*b', IsRegex: true }],
    ] as const)
      expect(() => resolveToolCall({ name, args: { ...args } }, '2026-09')).not.toThrow();
  });

  it('the 2026-05 vocabulary is unchanged', () => {
    expect(toolsOf('2026-05').map((tool) => tool.name)).toEqual([
      'code_execution',
      'read_file',
      'write_file',
      'list_files',
      'delete_file',
    ]);
    expect(refusal('read_file', {}, '2026-05')).toBe(
      'read_file: tool_call.args.path: must be a string',
    );
    expect(refusal('code_execution', { command: 'ls' }, '2026-05')).toMatch(
      /unknown key "command"/,
    );
  });
});

describe('code_execution timeout_seconds', () => {
  const settings: ToolRunSettings = {
    timeoutMs: 10_000,
    outputCapBytes: 1024,
    backgroundProcesses: false,
  };
  const request = (args: Record<string, unknown>) => {
    const { tool, args: parsed } = resolveToolCall({ name: 'code_execution', args }, '2026-09');
    return tool.request(parsed, settings) as { body: Record<string, unknown> };
  };
  it('shortens the environment timeout, never lengthens it', () => {
    expect(request({ code: 'x', timeout_seconds: 2 }).body.timeout_ms).toBe(2000);
    expect(request({ code: 'x', timeout_seconds: 600 }).body.timeout_ms).toBe(10_000);
    expect(request({ command: 'x' }).body).toMatchObject({
      code: 'x',
      language: 'bash',
      timeout_ms: 10_000,
    });
  });
});

describe('choosing a vocabulary', () => {
  it('the default is 2026-09', () => expect(DEFAULT_VOCABULARY).toBe('2026-09'));

  it('from an agent name', () => {
    expect(vocabularyForAgent('antigravity-preview-05-2026')).toBe('2026-05');
    expect(vocabularyForAgent('antigravity-preview-09-2026')).toBe('2026-09');
    expect(vocabularyForAgent('scripted')).toBe('2026-09');
    expect(vocabularyForAgent('antigravity-preview-07-2026')).toBe('2026-09');
    expect(vocabularyForAgent(undefined)).toBe('2026-09');
  });

  it('from the tools calls name (hookbox call without --vocabulary)', () => {
    expect(vocabularyForCalls([{ name: 'code_execution' }, { name: 'delete_file' }])).toBe(
      '2026-09',
    );
    expect(vocabularyForCalls([{ name: 'code_execution' }, { name: 'read_file' }])).toBe('2026-05');
    expect(vocabularyForCalls([{ name: 'read_file' }, { name: 'view_file' }])).toBe('2026-09');
    expect(vocabularyForCalls([{ name: 'nonsense' }])).toBe('2026-09');
  });
});

describe('declarations for model drivers', () => {
  it('every tool of each vocabulary, with a JSON Schema of its arguments', () => {
    const declared = toolDeclarations('2026-09');
    expect(declared.map((tool) => tool.name)).toEqual(toolsOf('2026-09').map((t) => t.name));
    const byName = Object.fromEntries(declared.map((tool) => [tool.name, tool]));
    expect(byName.view_file!.parameters).toMatchObject({
      type: 'object',
      properties: {
        AbsolutePath: { type: 'string', minLength: 1 },
        StartLine: { type: 'integer', minimum: 1 },
        EndLine: { type: 'integer', minimum: 1 },
        ContentOffset: { type: 'integer', minimum: 0 },
      },
      required: ['AbsolutePath'],
      additionalProperties: false,
    });
    expect(byName.view_file!.parameters).not.toHaveProperty('$schema');
    expect(JSON.stringify(declared)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    // Other accepted names are not advertised.
    expect(byName.delete_file!.parameters).toMatchObject({
      properties: { TargetFile: { type: 'string' } },
      required: ['TargetFile'],
    });
    expect(Object.keys(byName.code_execution!.parameters.properties as object)).toEqual([
      'code',
      'language',
      'timeout_seconds',
    ]);
    expect(byName.write_to_file!.parameters.required).toEqual(['TargetFile', 'CodeContent']);
    expect(toolDeclarations('2026-05')[1]).toEqual({
      name: 'read_file',
      description: 'Read a UTF-8 text file; relative paths are under /workspace.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', minLength: 1 } },
        required: ['path'],
        additionalProperties: false,
      },
    });
  });

  it("the registry's path arguments are the ones the workspace-only policy checks", () => {
    const fromRegistry = pathArgumentsByTool();
    const sorted = (record: Record<string, readonly string[]>) =>
      Object.fromEntries(
        Object.entries(record)
          .map(([name, args]) => [name, [...args].sort()])
          .sort(([a], [b]) => String(a).localeCompare(String(b))),
      );
    expect(sorted(fromRegistry)).toEqual(sorted(FILE_TOOL_PATH_ARGUMENTS));
  });
});
