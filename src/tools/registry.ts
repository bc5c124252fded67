import { UserError } from '../errors/index.js';
import { describeIssues } from '../errors/zod-issues.js';
import { checkArgumentDepth, checkArgumentText } from './argument-text.js';
import type { AnyToolDefinition } from './tool-definition.js';
import type { ToolCall } from './types.js';
import { VOCABULARY_2026_05 } from './vocabulary-2026-05.js';
import { VOCABULARY_2026_09 } from './vocabulary-2026-09.js';

/**
 * A tool vocabulary: the set of built-in tools an environment speaks. `2026-05` is the tool set of
 * the Gemini `antigravity-preview-05-2026` agent (docs/contract.md §5); `2026-09` that of its successor
 * `antigravity-preview-09-2026` (renamed file tools, PascalCase arguments). See docs/vocabularies.md.
 */
export type VocabularyId = '2026-05' | '2026-09';

export const VOCABULARIES: Record<VocabularyId, readonly AnyToolDefinition[]> = {
  '2026-05': VOCABULARY_2026_05,
  '2026-09': VOCABULARY_2026_09,
};

export const VOCABULARY_IDS = Object.keys(VOCABULARIES) as VocabularyId[];

/** The current Gemini agent's tools. @default '2026-09' */
export const DEFAULT_VOCABULARY: VocabularyId = '2026-09';

export function isVocabularyId(value: unknown): value is VocabularyId {
  return typeof value === 'string' && Object.hasOwn(VOCABULARIES, value);
}

export function toolsOf(vocabulary: VocabularyId): readonly AnyToolDefinition[] {
  return VOCABULARIES[vocabulary];
}

/** The tool that does the same job in the other vocabulary, where the name changed. */
const COUNTERPARTS: Readonly<Record<string, string>> = {
  read_file: 'view_file',
  write_file: 'write_to_file',
  list_files: 'list_dir',
  view_file: 'read_file',
  write_to_file: 'write_file',
  replace_file_content: 'write_file',
  list_dir: 'list_files',
};

/** `read_file` → `view_file` for 2026-09: the tool of `vocabulary` that does what `name` did. */
export function counterpartOf(name: string, vocabulary: VocabularyId): string | undefined {
  const counterpart = COUNTERPARTS[name];
  return counterpart && toolsOf(vocabulary).some((tool) => tool.name === counterpart)
    ? counterpart
    : undefined;
}

/** The vocabularies that have a tool of this name. */
export function vocabulariesWith(name: string): VocabularyId[] {
  return VOCABULARY_IDS.filter((id) => toolsOf(id).some((tool) => tool.name === name));
}

/**
 * The vocabulary for calls that did not say which: the default when it has every tool they name (or
 * when no vocabulary has them all, so the error names the default's tools), else the first vocabulary
 * that has them all. `hookbox call` without `--vocabulary` uses it, so a batch of `read_file` calls
 * still runs under 2026-05.
 */
export function vocabularyForCalls(calls: readonly Pick<ToolCall, 'name'>[]): VocabularyId {
  const hasAll = (id: VocabularyId) =>
    calls.every((call) => vocabulariesWith(call.name).includes(id));
  if (hasAll(DEFAULT_VOCABULARY)) return DEFAULT_VOCABULARY;
  return VOCABULARY_IDS.find(hasAll) ?? DEFAULT_VOCABULARY;
}

/** Path arguments of every file tool of every vocabulary, e.g. `view_file` → `['AbsolutePath']`. */
export function pathArgumentsByTool(): Record<string, readonly string[]> {
  const out: Record<string, Set<string>> = {};
  for (const id of VOCABULARY_IDS)
    for (const tool of toolsOf(id))
      if (tool.pathArgs.length > 0)
        tool.pathArgs.forEach((name) => (out[tool.name] ??= new Set()).add(name));
  return Object.fromEntries(Object.entries(out).map(([name, args]) => [name, [...args]]));
}

/** The argument names a tool accepts (the keys of its object schema). */
export function argumentNamesOf(tool: AnyToolDefinition): string[] {
  const shape = (tool.args as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

function unknownToolMessage(name: string, vocabulary: VocabularyId): string {
  const tools = toolsOf(vocabulary).map((t) => t.name);
  const elsewhere = vocabulariesWith(name);
  let hint = '';
  if (elsewhere.length > 0) {
    const counterpart = counterpartOf(name, vocabulary);
    hint =
      `; ${name} is a tool of vocabulary ${elsewhere.join(', ')}` +
      (counterpart ? ` (in ${vocabulary} use ${counterpart})` : '');
  }
  return `tool_call.name: unknown tool ${JSON.stringify(name)} (vocabulary ${vocabulary} has ${tools.join(', ')})${hint}`;
}

/**
 * Checks a tool call against its vocabulary before any hook runs (docs/contract.md §5): an unknown name or a
 * missing or mistyped argument is the caller's mistake. Messages use the vocabulary's own argument
 * names (`tool_call.args.AbsolutePath: required`).
 */
export function resolveToolCall(
  call: ToolCall,
  vocabulary: VocabularyId,
): { tool: AnyToolDefinition; args: Record<string, unknown> } {
  const tools = toolsOf(vocabulary);
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool) {
    throw new UserError('invalid_tool_call', unknownToolMessage(call.name, vocabulary), {
      details: { field: 'tool_call.name' },
    });
  }
  checkArgumentDepth(call.name, call.args ?? {});
  const parsed = tool.args.safeParse(call.args ?? {});
  if (!parsed.success) {
    const known = argumentNamesOf(tool);
    const problems = describeIssues(parsed.error.issues, (path) =>
      path.length === 0 ? known : [],
    ).map((problem) =>
      `tool_call.args.${problem.path === '(top level)' ? '' : problem.path}: ${problem.message}`.replace(
        'args.:',
        'args:',
      ),
    );
    throw new UserError('invalid_tool_call', `${call.name}: ${problems.join('; ')}`, {
      details: { field: `tool_call.args`, problems },
    });
  }
  const args = parsed.data;
  // Code is one argument of a process, paths go to the kernel: neither can hold a NUL.
  checkArgumentText(call.name, args, [...tool.pathArgs, 'code']);
  return { tool, args };
}
