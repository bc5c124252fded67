import type { HooksConfig } from '../config/hooks-config.js';
import { FOREIGN_TOOL_NAMES } from '../hooks/dialects/tool-names.js';
import { compileMatcher } from '../config/matcher.js';
import {
  counterpartOf,
  DEFAULT_VOCABULARY,
  toolsOf,
  VOCABULARY_IDS,
  vocabulariesWith,
  type VocabularyId,
} from '../tools/registry.js';

/** A matcher that never fires for a tool the author likely meant (`hookbox validate`). */
export interface MatcherWarning {
  /** JSON path of the rule's matcher, e.g. `privacy-gate.pre_tool_execution[0].matcher`. */
  where: string;
  message: string;
}

const CATCH_ALLS = new Set(['*', '', '.*']);
const TOOL_NAME = /^[A-Za-z0-9_]+$/;

/** `a|(b|c)|d` → `a`, `(b|c)`, `d`: the alternatives at the top level of a regular expression. */
export function topLevelAlternatives(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let current = '';
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '\\') {
      current += char + (source[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') inClass = true;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '|' && depth === 0) {
      out.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  out.push(current);
  return out;
}

function quoteList(names: readonly string[]): string {
  return names.join(', ');
}

/** The tools that take a path: what a gate on "file tools" is meant to cover. */
function fileToolsOf(vocabulary: VocabularyId): string[] {
  return toolsOf(vocabulary)
    .filter((tool) => tool.pathArgs.length > 0)
    .map((tool) => tool.name);
}

function matchingTools(pattern: string, vocabulary: VocabularyId): string[] | undefined {
  const compiled = compileMatcher(pattern);
  if (!compiled.ok) return undefined;
  return toolsOf(vocabulary)
    .map((tool) => tool.name)
    .filter((name) => compiled.matcher.matches(name));
}

/** Warnings for one matcher against the vocabularies checked (one given, or all). */
export function matcherWarnings(
  source: string | undefined,
  where: string,
  vocabulary?: VocabularyId,
): MatcherWarning[] {
  if (source === undefined || CATCH_ALLS.has(source)) return [];
  const checked = vocabulary ? [vocabulary] : VOCABULARY_IDS;
  const warnings: MatcherWarning[] = [];
  const warn = (message: string) =>
    warnings.push({ where, message: `matcher ${JSON.stringify(source)}: ${message}` });
  const alternatives = topLevelAlternatives(source);
  let regexAlternatives = false;
  for (const alternative of alternatives) {
    if (TOOL_NAME.test(alternative)) {
      const having = vocabulariesWith(alternative);
      const missing = checked.filter((id) => !having.includes(id));
      if (missing.length === 0) continue;
      if (having.length === 0) {
        warn(
          `no vocabulary has a tool named ${JSON.stringify(alternative)}, so ${alternatives.length > 1 ? 'this alternative' : 'the rule'} never fires (${vocabulary ?? DEFAULT_VOCABULARY} has ${quoteList(toolsOf(vocabulary ?? DEFAULT_VOCABULARY).map((t) => t.name))})`,
        );
        continue;
      }
      for (const id of missing) {
        const counterpart = counterpartOf(alternative, id);
        warn(
          `vocabulary ${id}${vocabulary ? '' : id === DEFAULT_VOCABULARY ? ' (the default)' : ''} has no tool ${JSON.stringify(alternative)} (it is a ${having.join(', ')} tool), so under ${id} it never fires` +
            (counterpart ? `; the ${id} tool for that job is ${JSON.stringify(counterpart)}` : ''),
        );
      }
      continue;
    }
    regexAlternatives = true;
    const matchedSomewhere = checked.some(
      (id) => (matchingTools(alternative, id) ?? ['?']).length > 0,
    );
    if (!matchedSomewhere)
      warn(
        `${alternatives.length > 1 ? `the alternative ${JSON.stringify(alternative)}` : 'it'} matches no tool of ${vocabulary ? `vocabulary ${vocabulary}` : 'any vocabulary'}, so it never fires`,
      );
  }
  // A pattern meant for "the file tools" (`.*_file`) that misses some of them.
  if (regexAlternatives) {
    for (const id of checked) {
      const matched = matchingTools(source, id);
      if (!matched) continue;
      const files = fileToolsOf(id);
      const covered = files.filter((name) => matched.includes(name));
      const uncovered = files.filter((name) => !matched.includes(name));
      if (covered.length >= 2 && uncovered.length > 0)
        warn(
          `under ${id} it matches ${quoteList(covered)} but not ${quoteList(uncovered)}, which also work on files; to gate every file tool name them: ${JSON.stringify(files.join('|'))}`,
        );
    }
  }
  return warnings;
}

/** Every rule's matcher of a hooks.json, checked against a vocabulary (or all of them). */
export function hooksConfigMatcherWarnings(
  config: HooksConfig,
  vocabulary?: VocabularyId,
): MatcherWarning[] {
  return config.groups.flatMap((group) =>
    (['pre_tool_execution', 'post_tool_execution'] as const).flatMap((event) =>
      group[event].flatMap((rule) => {
        if (group.dialect === 'gemini')
          return matcherWarnings(rule.matcher.source, `${rule.path}.matcher`, vocabulary);
        // A dialect group's matchers see that system's tool names (docs/dialects.md).
        const names: readonly string[] = FOREIGN_TOOL_NAMES[group.dialect];
        if (names.some((name) => rule.matcher.matches(name))) return [];
        return [
          {
            where: `${rule.path}.matcher`,
            message: `matcher ${JSON.stringify(rule.matcher.source)} names no tool hookbox shows a ${group.dialect} hook (${names.join(', ')}), so it never fires`,
          },
        ];
      }),
    ),
  );
}
