import { z } from 'zod';
import type { AgentAnswerOf, AgentRequestOf } from '../sandbox/protocol/index.js';
import type { AnyToolDefinition, ToolDefinition, ToolRunSettings } from './tool-definition.js';
import type { ExecResult, PresentedResult } from './types.js';

/** Slack on top of a tool's own timeout before an unanswered request means the agent is gone. */
export const ANSWER_SLACK_MS = 15_000;
export const FILE_ANSWER_TIMEOUT_MS = 60_000;
/** read_file refuses files larger than this. */
export const MAX_READ_FILE_BYTES = 10 * 1024 * 1024;

const path = z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' });

export function codeExecutionError(result: PresentedResult): string | undefined {
  const parts: string[] = [];
  if (typeof result.stderr === 'string' && result.stderr !== '') parts.push(result.stderr);
  if (result.timed_out === true) parts.push('timed out');
  else if (typeof result.exit_code === 'number' && result.exit_code !== 0)
    parts.push(`exit code ${result.exit_code}`);
  return parts.length > 0 ? parts.join('\n') : undefined;
}

/** `{exit_code, stdout, stderr, timed_out, truncated}` from the agent's `run_code` answer. */
export function codeExecutionResult(answer: AgentAnswerOf<'run_code'>): ExecResult {
  return {
    exit_code: answer.exit_code,
    stdout: answer.stdout,
    stderr: answer.stderr,
    timed_out: answer.timed_out,
    truncated: answer.truncated,
  };
}

export function fileError(result: PresentedResult): string | undefined {
  return typeof result.error === 'string' ? result.error : undefined;
}

function fileTool<Args extends AgentRequestOf<'file'>['args']>(
  name: AgentRequestOf<'file'>['tool'],
  description: string,
  args: z.ZodType<Args>,
): ToolDefinition<Args, 'file'> {
  return {
    name,
    op: 'file',
    description,
    args,
    pathArgs: ['path'],
    request: (callArgs) => ({
      op: 'file',
      body: { tool: name, args: callArgs, max_read_bytes: MAX_READ_FILE_BYTES },
      answerTimeoutMs: FILE_ANSWER_TIMEOUT_MS,
    }),
    // The agent's answer, checked against the protocol's `file` answer, is the tool's result as it is.
    result: (answer) => answer,
    errorOf: fileError,
  };
}

const codeExecution: ToolDefinition<
  { code: string; language?: 'bash' | 'python' | 'sh' },
  'run_code'
> = {
  name: 'code_execution',
  op: 'run_code',
  description: 'Run bash, sh or python code in the sandbox; cwd /workspace.',
  pathArgs: [],
  args: z.strictObject({
    code: z.string({ error: 'must be a string' }),
    language: z
      .enum(['bash', 'python', 'sh'], { error: 'must be "bash", "python" or "sh"' })
      .optional(),
  }),
  request: (args, settings: ToolRunSettings) => ({
    op: 'run_code',
    body: {
      code: args.code,
      language: args.language ?? 'bash',
      timeout_ms: settings.timeoutMs,
      output_cap_bytes: settings.outputCapBytes,
      background_processes: settings.backgroundProcesses,
    },
    answerTimeoutMs: settings.timeoutMs + ANSWER_SLACK_MS,
  }),
  result: codeExecutionResult,
  errorOf: codeExecutionError,
};

/** The tools of the Gemini `antigravity-preview-05-2026` agent (docs/contract.md §5). */
export const VOCABULARY_2026_05: readonly AnyToolDefinition[] = [
  codeExecution,
  fileTool(
    'read_file',
    'Read a UTF-8 text file; relative paths are under /workspace.',
    z.strictObject({ path }),
  ),
  fileTool(
    'write_file',
    'Write a UTF-8 text file (parent folders are made); relative paths are under /workspace.',
    z.strictObject({ path, content: z.string({ error: 'must be a string' }) }),
  ),
  fileTool(
    'list_files',
    'List a folder: name, type and size of each entry.',
    z.strictObject({ path }),
  ),
  fileTool('delete_file', 'Delete a file (not a folder).', z.strictObject({ path })),
];
