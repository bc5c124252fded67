import type { ToolCall } from '../../tools/types.js';
import { fromClaudeCode, toClaudeCode } from './foreign-tools.js';
import type { ForeignCall } from './types.js';

/**
 * A vocabulary that has Claude Code's tools under other names and argument names (Gemini CLI,
 * Copilot CLI, Cursor, OpenHands; docs/dialects.md, the mapping tables). A call is shown by renaming
 * its Claude Code form, and a rewrite comes back by renaming it to Claude Code's and reading that.
 */
export interface Renaming {
  /** Claude Code tool name → this vocabulary's. */
  tools: Record<string, string>;
  /** Per Claude Code tool: Claude Code argument → this vocabulary's. Others are not shown. */
  fields: Record<string, Record<string, string>>;
  /** Arguments this vocabulary always has, per Claude Code tool (`cwd`, OpenHands' `command`, …). */
  fixed?: Record<string, Record<string, unknown>>;
}

type Args = Record<string, unknown>;

/**
 * Claude Code's argument names as the str_replace-editor family of tools names them (`path`,
 * `file_text`, `old_str`, `new_str`), which Copilot's and OpenHands' tools both take
 * (docs/dialects.md, the mapping tables).
 */
export const EDITOR_FIELDS: Renaming['fields'] = {
  Bash: { command: 'command' },
  Read: { file_path: 'path' },
  Write: { file_path: 'path', content: 'file_text' },
  Edit: { file_path: 'path', old_string: 'old_str', new_string: 'new_str' },
  LS: { path: 'path' },
  Glob: { pattern: 'pattern', path: 'path' },
  Grep: { pattern: 'pattern', path: 'path' },
};

export function renamedVocabulary(renaming: Renaming) {
  const show = (call: ToolCall): ForeignCall => {
    const claude = toClaudeCode(call);
    const name = renaming.tools[claude.name];
    if (name === undefined) return claude;
    const fields = renaming.fields[claude.name] ?? {};
    const input: Args = { ...renaming.fixed?.[claude.name] };
    for (const [from, to] of Object.entries(fields))
      if (claude.input[from] !== undefined) input[to] = claude.input[from];
    return { name, input };
  };
  const back = (updated: Args, call: ToolCall): ToolCall | { error: string } => {
    const claude = toClaudeCode(call);
    const fields = renaming.fields[claude.name] ?? {};
    const inClaude: Args = {};
    for (const [from, to] of Object.entries(fields))
      if (to in updated) inClaude[from] = updated[to];
    return fromClaudeCode(inClaude, call);
  };
  const names = [...new Set(Object.values(renaming.tools))];
  return { show, back, names };
}
