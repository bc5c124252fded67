import { z } from 'zod';
import type { AgentRequestOf } from '../sandbox/protocol/index.js';
import type { AnyToolDefinition, ToolDefinition, ToolRunSettings } from './tool-definition.js';
import type { PresentedResult } from './types.js';
import { valueText } from './value-text.js';
import {
  ANSWER_SLACK_MS,
  codeExecutionError,
  codeExecutionResult,
  FILE_ANSWER_TIMEOUT_MS,
  fileError,
  MAX_READ_FILE_BYTES,
} from './vocabulary-2026-05.js';

/** view_file shows at most this many characters per call; the rest is reached with ContentOffset. */
export const VIEW_FILE_MAX_CHARS = 100_000;
/** find_by_name lists at most this many matches. */
export const FIND_MAX_RESULTS = 1_000;
/** grep_search reports at most this many matching lines. */
export const GREP_MAX_MATCHES = 500;
/** Cap on what grep's child process may print (its matches as JSON lines). */
const GREP_OUTPUT_CAP_BYTES = 4 * 1024 * 1024;

type Issue = { input?: unknown };

/** A string argument: "required" when missing, else "must be <what>". */
function text(what = 'a string') {
  return z.string({
    error: (issue: Issue) => (issue.input === undefined ? 'required' : `must be ${what}`),
  });
}

const filePath = text().min(1, { error: 'must not be empty' });

function lineNumber() {
  return z
    .number({
      error: (issue: Issue) =>
        issue.input === undefined ? 'required' : 'must be a line number (a whole number from 1)',
    })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be 1 or more (lines are numbered from 1)' });
}

function flag() {
  return z.boolean({ error: 'must be true or false' });
}

/** EndLine before StartLine is bad input, refused with the argument names. */
function lineRangeInOrder(
  args: { StartLine?: number; EndLine?: number },
  context: z.core.$RefinementCtx,
): void {
  if (args.StartLine !== undefined && args.EndLine !== undefined && args.EndLine < args.StartLine)
    context.addIssue({
      code: 'custom',
      path: ['EndLine'],
      message: `must be at least StartLine (${args.StartLine})`,
    });
}

/** One of several names for the same argument must be given, and only one. */
function oneOf(names: readonly string[], missing: string) {
  return (args: Record<string, unknown>, context: z.core.$RefinementCtx): void => {
    const given = names.filter((name) => args[name] !== undefined);
    if (given.length === 0)
      context.addIssue({ code: 'custom', path: [names[0]!], message: missing });
    else if (given.length > 1)
      context.addIssue({
        code: 'custom',
        path: [given[1]!],
        message: `give only one of ${names.join(', ')} (also given: ${given[0]})`,
      });
  };
}

const LANGUAGE = z
  .enum(['bash', 'python', 'sh'], { error: 'must be "bash", "python" or "sh"' })
  .describe('bash (default), python or sh');
const TIMEOUT_SECONDS = z
  .number({ error: 'must be a number of seconds' })
  .positive({ error: 'must be more than 0 seconds' })
  .describe("seconds before the process tree is killed; at most the environment's own timeout");

// A type, not an interface: the vocabulary lists tools by their arguments as a plain object.
type CodeExecutionArgs = {
  code?: string;
  command?: string;
  language?: 'bash' | 'python' | 'sh';
  timeout_seconds?: number;
};

const codeExecution: ToolDefinition<CodeExecutionArgs, 'run_code'> = {
  name: 'code_execution',
  op: 'run_code',
  description: 'Run bash, sh or python code in the sandbox; cwd /workspace.',
  args: z
    .strictObject({
      code: text().optional(),
      command: text().optional(),
      language: LANGUAGE.optional(),
      timeout_seconds: TIMEOUT_SECONDS.optional(),
    })
    .superRefine(
      oneOf(['code', 'command'], 'required (the code to run; "command" is accepted for it too)'),
    ),
  modelArgs: z.strictObject({
    code: z.string().describe('the code to run'),
    language: LANGUAGE.optional(),
    timeout_seconds: TIMEOUT_SECONDS.optional(),
  }),
  pathArgs: [],
  request: (args, settings: ToolRunSettings) => {
    // A per-call timeout may shorten the environment's timeout, never lengthen it.
    const timeoutMs =
      args.timeout_seconds === undefined
        ? settings.timeoutMs
        : Math.min(settings.timeoutMs, Math.max(1, Math.round(args.timeout_seconds * 1000)));
    return {
      op: 'run_code',
      body: {
        // The arguments' check made sure one of the two is given.
        code: args.code ?? args.command ?? '',
        language: args.language ?? 'bash',
        timeout_ms: timeoutMs,
        output_cap_bytes: settings.outputCapBytes,
        background_processes: settings.backgroundProcesses,
      },
      answerTimeoutMs: timeoutMs + ANSWER_SLACK_MS,
    };
  },
  result: codeExecutionResult,
  errorOf: codeExecutionError,
};

/** A 2026-09 file tool: its arguments go to the agent's `file_2026_09` op renamed to snake_case. */
function fileTool<Args extends Record<string, unknown>>(
  definition: Pick<ToolDefinition<Args>, 'name' | 'description' | 'args' | 'pathArgs'> & {
    modelArgs?: z.ZodType;
    body(args: Args, settings: ToolRunSettings): Record<string, unknown>;
    answerTimeoutMs?(settings: ToolRunSettings): number;
    errorOf?(result: PresentedResult): string | undefined;
  },
): ToolDefinition<Args, 'file_2026_09'> {
  return {
    name: definition.name,
    op: 'file_2026_09',
    description: definition.description,
    args: definition.args,
    ...(definition.modelArgs ? { modelArgs: definition.modelArgs } : {}),
    pathArgs: definition.pathArgs,
    request: (args, settings) => ({
      op: 'file_2026_09',
      // Each tool's body is checked against the protocol before it is sent (docs/agent-protocol.md).
      body: {
        tool: definition.name,
        ...definition.body(args, settings),
      } as AgentRequestOf<'file_2026_09'>,
      answerTimeoutMs: definition.answerTimeoutMs?.(settings) ?? FILE_ANSWER_TIMEOUT_MS,
    }),
    // The agent's answer, checked against the protocol's `file_2026_09` answer, is the result as it is.
    result: (answer) => answer,
    errorOf: definition.errorOf ?? fileError,
  };
}

const viewFile = fileTool<{
  AbsolutePath: string;
  StartLine?: number;
  EndLine?: number;
  ContentOffset?: number;
}>({
  name: 'view_file',
  description:
    'Show a UTF-8 text file, or lines StartLine to EndLine of it (1-based, inclusive), each line prefixed with its number ("12: text"). A long view is cut at a line end; pass the result\'s next_content_offset as ContentOffset (with the same lines) to go on.',
  args: z
    .strictObject({
      AbsolutePath: filePath.describe('the file; a relative path is under /workspace'),
      StartLine: lineNumber().optional().describe('first line to show (default 1)'),
      EndLine: lineNumber().optional().describe('last line to show (default: the last line)'),
      ContentOffset: z
        .number({ error: 'must be a number of characters' })
        .int({ error: 'must be a whole number' })
        .min(0, { error: 'must be 0 or more' })
        .optional()
        .describe('characters of the chosen lines to skip: next_content_offset of a cut view'),
    })
    .superRefine(lineRangeInOrder),
  pathArgs: ['AbsolutePath'],
  body: (args) => ({
    path: args.AbsolutePath,
    start_line: args.StartLine ?? null,
    end_line: args.EndLine ?? null,
    content_offset: args.ContentOffset ?? null,
    max_read_bytes: MAX_READ_FILE_BYTES,
    max_view_chars: VIEW_FILE_MAX_CHARS,
  }),
});

const writeToFile = fileTool<{
  TargetFile: string;
  CodeContent: string;
  Overwrite?: boolean;
  Description?: string;
}>({
  name: 'write_to_file',
  description:
    'Create a UTF-8 text file (parent folders are made). An existing file is an error and stays unchanged unless Overwrite is true.',
  args: z.strictObject({
    TargetFile: filePath.describe('the file; a relative path is under /workspace'),
    CodeContent: text().describe('the whole content of the file'),
    Overwrite: flag().optional().describe('replace the file if it exists (default false)'),
    Description: text().optional().describe('what the change is for (shown to hooks, not used)'),
  }),
  pathArgs: ['TargetFile'],
  body: (args) => ({
    path: args.TargetFile,
    content: args.CodeContent,
    overwrite: args.Overwrite ?? false,
  }),
});

const replaceFileContent = fileTool<{
  TargetFile: string;
  StartLine: number;
  EndLine: number;
  TargetContent: string;
  ReplacementContent: string;
}>({
  name: 'replace_file_content',
  description:
    'Replace lines StartLine to EndLine (1-based, inclusive) of a file with ReplacementContent. TargetContent must equal those lines as they are now (without line numbers; the final line break may be left off), otherwise nothing changes and the error shows the lines. An empty ReplacementContent deletes the lines.',
  args: z
    .strictObject({
      TargetFile: filePath.describe('the file; a relative path is under /workspace'),
      StartLine: lineNumber().describe('first line to replace'),
      EndLine: lineNumber().describe('last line to replace'),
      TargetContent: text().describe('the current text of those lines'),
      ReplacementContent: text().describe('the new text of those lines'),
    })
    .superRefine(lineRangeInOrder),
  pathArgs: ['TargetFile'],
  body: (args) => ({
    path: args.TargetFile,
    start_line: args.StartLine,
    end_line: args.EndLine,
    target_content: args.TargetContent,
    replacement_content: args.ReplacementContent,
    max_read_bytes: MAX_READ_FILE_BYTES,
  }),
});

const listDir = fileTool<{ DirectoryPath: string }>({
  name: 'list_dir',
  description:
    'List a folder: name, type (file, directory, symlink, other) and size of each entry.',
  args: z.strictObject({
    DirectoryPath: filePath.describe('the folder; a relative path is under /workspace'),
  }),
  pathArgs: ['DirectoryPath'],
  body: (args) => ({ path: args.DirectoryPath }),
});

const DELETE_PATH_NAMES = ['TargetFile', 'AbsolutePath', 'path'] as const;

const deleteFile = fileTool<{ TargetFile?: string; AbsolutePath?: string; path?: string }>({
  name: 'delete_file',
  description: 'Delete a file (not a folder).',
  args: z
    .strictObject({
      TargetFile: filePath.optional(),
      AbsolutePath: filePath.optional(),
      path: filePath.optional(),
    })
    .superRefine(
      oneOf(
        DELETE_PATH_NAMES,
        'required (the file to delete; AbsolutePath or path are accepted too)',
      ),
    ),
  modelArgs: z.strictObject({
    TargetFile: z.string().describe('the file; a relative path is under /workspace'),
  }),
  pathArgs: DELETE_PATH_NAMES,
  body: (args) => ({ path: args.TargetFile ?? args.AbsolutePath ?? args.path }),
});

const findByName = fileTool<{ SearchDirectory: string; Pattern: string; MaxDepth?: number }>({
  name: 'find_by_name',
  description: `Find files and folders under SearchDirectory whose name matches the glob Pattern (*, ?, [abc], {a,b}; a Pattern with "/" is matched against the path relative to SearchDirectory, and ** crosses folders). At most ${FIND_MAX_RESULTS} matches.`,
  args: z.strictObject({
    SearchDirectory: filePath.describe('the folder to search; a relative path is under /workspace'),
    Pattern: text().min(1, { error: 'must not be empty' }).describe('a glob, e.g. *.py'),
    MaxDepth: z
      .number({ error: 'must be a whole number of levels' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be 1 or more (1: only the entries directly in SearchDirectory)' })
      .optional()
      .describe('how deep to look; 1 is only the entries directly in SearchDirectory'),
  }),
  pathArgs: ['SearchDirectory'],
  body: (args) => ({
    path: args.SearchDirectory,
    pattern: args.Pattern,
    max_depth: args.MaxDepth ?? null,
    max_results: FIND_MAX_RESULTS,
  }),
});

const grepSearch = fileTool<{ SearchPath: string; Query: string; IsRegex?: boolean }>({
  name: 'grep_search',
  description: `Search a file, or the text files under a folder, for lines containing Query (or matching it as a Python regular expression when IsRegex is true); case-sensitive. Gives file and line number of each match, at most ${GREP_MAX_MATCHES}.`,
  args: z.strictObject({
    SearchPath: filePath.describe('a file or folder; a relative path is under /workspace'),
    Query: text().min(1, { error: 'must not be empty' }).describe('the text to look for'),
    IsRegex: flag()
      .optional()
      .describe("Query is a Python regular expression (Python's re, not RE2); default false"),
  }),
  pathArgs: ['SearchPath'],
  body: (args, settings) => ({
    path: args.SearchPath,
    query: args.Query,
    is_regex: args.IsRegex ?? false,
    max_matches: GREP_MAX_MATCHES,
    max_read_bytes: MAX_READ_FILE_BYTES,
    timeout_ms: settings.timeoutMs,
    output_cap_bytes: GREP_OUTPUT_CAP_BYTES,
  }),
  answerTimeoutMs: (settings) => settings.timeoutMs + ANSWER_SLACK_MS,
  errorOf: (result) =>
    fileError(result) ??
    (result.timed_out === true ? valueText(result.note ?? 'timed out') : undefined),
});

/** The tools of the Gemini `antigravity-preview-09-2026` agent (docs/vocabularies.md). */
export const VOCABULARY_2026_09: readonly AnyToolDefinition[] = [
  codeExecution,
  viewFile,
  writeToFile,
  replaceFileContent,
  listDir,
  deleteFile,
  findByName,
  grepSearch,
];
