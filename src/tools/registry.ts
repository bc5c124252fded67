import { UserError } from '../errors/index.js';
import { describeIssues } from '../config/zod-issues.js';
import type { ToolDefinition } from './tool-definition.js';
import type { ToolCall } from './types.js';
import { VOCABULARY_2026_05 } from './vocabulary-2026-05.js';

/** A tool vocabulary: the set of built-in tools an environment speaks. */
export type VocabularyId = '2026-05';

export const VOCABULARIES: Record<VocabularyId, readonly ToolDefinition[]> = {
  '2026-05': VOCABULARY_2026_05,
};

/** @default '2026-05' */
export const DEFAULT_VOCABULARY: VocabularyId = '2026-05';

export function toolsOf(vocabulary: VocabularyId): readonly ToolDefinition[] {
  return VOCABULARIES[vocabulary];
}

/**
 * Checks a tool call against its vocabulary before any hook runs (SPEC §5): an unknown name or a
 * missing or mistyped argument is the caller's mistake.
 */
export function resolveToolCall(
  call: ToolCall,
  vocabulary: VocabularyId,
): { tool: ToolDefinition; args: Record<string, unknown> } {
  const tools = toolsOf(vocabulary);
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool) {
    throw new UserError(
      'invalid_tool_call',
      `tool_call.name: unknown tool ${JSON.stringify(call.name)} (vocabulary ${vocabulary} has ${tools.map((t) => t.name).join(', ')})`,
      { details: { field: 'tool_call.name' } },
    );
  }
  const parsed = tool.args.safeParse(call.args ?? {});
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues).map((problem) =>
      `tool_call.args.${problem.path === '(top level)' ? '' : problem.path}: ${problem.message}`.replace(
        'args.:',
        'args:',
      ),
    );
    throw new UserError('invalid_tool_call', `${call.name}: ${problems.join('; ')}`, {
      details: { field: `tool_call.args`, problems },
    });
  }
  return { tool, args: parsed.data as Record<string, unknown> };
}
