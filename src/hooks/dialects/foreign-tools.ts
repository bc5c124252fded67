import { posix } from 'node:path';
import type { ToolCall } from '../../tools/types.js';
import { valueText } from '../../tools/value-text.js';
import type { ForeignCall } from './types.js';

/**
 * How another system would have called each hookbox tool, and back (docs/dialects.md, the mapping
 * tables). Claude Code and Antigravity CLI hooks match on their own tool names and read their own
 * argument names; these tables are the one place that knows both vocabularies.
 */

const WORKSPACE = '/workspace';

type Args = Record<string, unknown>;

/** A path as those systems give it: absolute (relative ones are under /workspace). */
export function absolute(path: unknown): string {
  const text = valueText(path ?? '');
  return text.startsWith('/') ? posix.normalize(text) : posix.join(WORKSPACE, text);
}

/** Single-quoted for /bin/sh. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `code_execution` as the shell command that runs it: bash code is the command itself; sh and
 * python code are shown as `sh -c '…'` / `python3 -c '…'` (what Claude Code's Bash tool or
 * Antigravity's run_command would have been given to run the same code).
 */
export function commandOf(args: Args): string {
  const code = valueText(args.code ?? args.command ?? '');
  const language = (args.language as string | undefined) ?? 'bash';
  if (language === 'python') return `python3 -c ${shellQuote(code)}`;
  if (language === 'sh') return `sh -c ${shellQuote(code)}`;
  return code;
}

/** The file a `delete_file` call names, whichever argument name it used. */
function deletePath(args: Args): string {
  return absolute(args.TargetFile ?? args.AbsolutePath ?? args.path);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** hookbox tool → Claude Code tool (Bash, Read, Write, Edit, LS, Glob, Grep). */
export function toClaudeCode(call: ToolCall): ForeignCall {
  const a = call.args;
  switch (call.name) {
    case 'code_execution':
      return {
        name: 'Bash',
        input: {
          command: commandOf(a),
          ...(typeof a.timeout_seconds === 'number' ? { timeout: a.timeout_seconds * 1000 } : {}),
        },
      };
    case 'delete_file':
      return { name: 'Bash', input: { command: `rm -- ${shellQuote(deletePath(a))}` } };
    case 'read_file':
      return { name: 'Read', input: { file_path: absolute(a.path) } };
    case 'view_file': {
      const start = a.StartLine as number | undefined;
      const end = a.EndLine as number | undefined;
      return {
        name: 'Read',
        input: {
          file_path: absolute(a.AbsolutePath),
          ...(start !== undefined || end !== undefined ? { offset: start ?? 1 } : {}),
          ...(end !== undefined ? { limit: end - (start ?? 1) + 1 } : {}),
        },
      };
    }
    case 'write_file':
      return { name: 'Write', input: { file_path: absolute(a.path), content: a.content } };
    case 'write_to_file':
      return {
        name: 'Write',
        input: { file_path: absolute(a.TargetFile), content: a.CodeContent },
      };
    case 'replace_file_content':
      return {
        name: 'Edit',
        input: {
          file_path: absolute(a.TargetFile),
          old_string: a.TargetContent,
          new_string: a.ReplacementContent,
        },
      };
    case 'list_files':
      return { name: 'LS', input: { path: absolute(a.path) } };
    case 'list_dir':
      return { name: 'LS', input: { path: absolute(a.DirectoryPath) } };
    case 'find_by_name':
      return { name: 'Glob', input: { pattern: a.Pattern, path: absolute(a.SearchDirectory) } };
    case 'grep_search':
      return {
        name: 'Grep',
        input: {
          pattern: a.IsRegex === true ? a.Query : escapeRegex(String(a.Query)),
          path: absolute(a.SearchPath),
        },
      };
    default:
      return { name: call.name, input: a };
  }
}

/** hookbox tool → Antigravity CLI tool (run_command, view_file, write_to_file, list_dir, …). */
export function toAntigravityCli(call: ToolCall): ForeignCall {
  const a = call.args;
  const withPath = (name: string, key: string, value: unknown): ForeignCall => ({
    name,
    input: { ...a, [key]: absolute(value) },
  });
  switch (call.name) {
    case 'code_execution':
      return { name: 'run_command', input: { CommandLine: commandOf(a), Cwd: WORKSPACE } };
    case 'delete_file':
      return {
        name: 'run_command',
        input: { CommandLine: `rm -- ${shellQuote(deletePath(a))}`, Cwd: WORKSPACE },
      };
    case 'read_file':
      return { name: 'view_file', input: { AbsolutePath: absolute(a.path) } };
    case 'write_file':
      return {
        name: 'write_to_file',
        input: { TargetFile: absolute(a.path), CodeContent: a.content },
      };
    case 'list_files':
      return { name: 'list_dir', input: { DirectoryPath: absolute(a.path) } };
    case 'view_file':
      return withPath('view_file', 'AbsolutePath', a.AbsolutePath);
    case 'write_to_file':
      return withPath('write_to_file', 'TargetFile', a.TargetFile);
    case 'replace_file_content':
      return withPath('replace_file_content', 'TargetFile', a.TargetFile);
    case 'list_dir':
      return withPath('list_dir', 'DirectoryPath', a.DirectoryPath);
    case 'find_by_name':
      return withPath('find_by_name', 'SearchDirectory', a.SearchDirectory);
    case 'grep_search':
      return withPath('grep_search', 'SearchPath', a.SearchPath);
    default:
      return { name: call.name, input: a };
  }
}

const changed = (before: Args, after: Args, key: string) =>
  JSON.stringify(before[key]) !== JSON.stringify(after[key]);

/** Fields of Claude Code's tool inputs that are strings (its tools' schemas). */
const STRING_FIELDS = [
  'command',
  'file_path',
  'content',
  'old_string',
  'new_string',
  'path',
  'pattern',
];

/**
 * A Claude Code `updatedInput` back in hookbox's arguments for `call`: only the fields the hook
 * changed are carried back; the rest of the call stays as it was.
 */
export function fromClaudeCode(updated: Args, call: ToolCall): ToolCall | { error: string } {
  for (const key of STRING_FIELDS)
    if (key in updated && typeof updated[key] !== 'string')
      return {
        error: `updatedInput.${key} must be a string (got ${JSON.stringify(updated[key])})`,
      };
  const shown = toClaudeCode(call).input;
  const input = { ...shown, ...updated };
  const a = call.args;
  const keep = (args: Args): ToolCall => ({ name: call.name, args });
  if (Object.keys(input).every((key) => !changed(shown, input, key))) return keep(a);
  // A field the hook left alone keeps the caller's spelling (a relative path stays relative).
  const pick = (key: string, original: unknown) =>
    changed(shown, input, key) ? input[key] : original;
  switch (call.name) {
    case 'code_execution': {
      const next: Args = { ...a };
      if (changed(shown, input, 'command')) {
        delete next.command;
        next.code = String(input.command);
        next.language = 'bash';
      }
      if (
        changed(shown, input, 'timeout') &&
        typeof input.timeout === 'number' &&
        'timeout_seconds' in a
      )
        next.timeout_seconds = input.timeout / 1000;
      return keep(next);
    }
    case 'delete_file':
      if (changed(shown, input, 'command'))
        return {
          error:
            'delete_file is shown to Claude Code hooks as a Bash "rm" command; a rewritten command would be another tool, so it cannot be carried back',
        };
      return keep(a);
    case 'read_file':
      return keep({ ...a, path: pick('file_path', a.path) });
    case 'view_file': {
      const next: Args = { ...a, AbsolutePath: pick('file_path', a.AbsolutePath) };
      if (changed(shown, input, 'offset') || changed(shown, input, 'limit')) {
        const offset = Number(input.offset ?? 1);
        next.StartLine = offset;
        if (input.limit !== undefined) next.EndLine = offset + Number(input.limit) - 1;
        else delete next.EndLine;
      }
      return keep(next);
    }
    case 'write_file':
      return keep({ ...a, path: pick('file_path', a.path), content: input.content });
    case 'write_to_file':
      return keep({
        ...a,
        TargetFile: pick('file_path', a.TargetFile),
        CodeContent: input.content,
      });
    case 'replace_file_content':
      return keep({
        ...a,
        TargetFile: pick('file_path', a.TargetFile),
        TargetContent: input.old_string,
        ReplacementContent: input.new_string,
      });
    case 'list_files':
      return keep({ ...a, path: pick('path', a.path) });
    case 'list_dir':
      return keep({ ...a, DirectoryPath: pick('path', a.DirectoryPath) });
    case 'find_by_name':
      return keep({
        ...a,
        SearchDirectory: pick('path', a.SearchDirectory),
        Pattern: input.pattern,
      });
    case 'grep_search': {
      const next: Args = { ...a, SearchPath: pick('path', a.SearchPath) };
      if (changed(shown, input, 'pattern')) {
        next.Query = input.pattern;
        next.IsRegex = true;
      }
      return keep(next);
    }
    default:
      return keep(input);
  }
}
