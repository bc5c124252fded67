import { UserError } from '../../errors/index.js';
import { resolveToolCall, toolsOf, VOCABULARIES, type VocabularyId } from '../../tools/registry.js';
import type { ToolCall } from '../../tools/types.js';
import type { InputCheckContext, InteractionInput, ModelDriver } from '../driver.js';

/** The tool call an input item stands for, or undefined for text (and anything else). */
export function scriptedCallOf(item: Record<string, unknown>): ToolCall | undefined {
  if (item.type === 'code_execution_call')
    return { name: 'code_execution', args: (item.arguments ?? {}) as Record<string, unknown> };
  if (item.type === 'tool_call')
    return { name: String(item.name), args: (item.arguments ?? {}) as Record<string, unknown> };
  return undefined;
}

/** The calls of an input, with their index in it. */
export function scriptedCalls(input: InteractionInput): { index: number; call: ToolCall }[] {
  if (typeof input === 'string') return [];
  return input.flatMap((item, index) => {
    const call = scriptedCallOf(item);
    return call ? [{ index, call }] : [];
  });
}

/** Rewrites a registry error about `tool_call.…` into one about `input[i].…`. */
function atInput(error: UserError, index: number, item: Record<string, unknown>): UserError {
  const where = (text: string) =>
    text
      .replace(/tool_call\.args/g, `input[${index}].arguments`)
      .replace(
        /tool_call\.name/g,
        item.type === 'tool_call' ? `input[${index}].name` : `input[${index}].type`,
      );
  const problems = Array.isArray(error.details.problems)
    ? (error.details.problems as string[]).map(where)
    : undefined;
  const first = problems?.[0] ?? where(error.message);
  const field = first.includes(':') ? first.slice(0, first.indexOf(':')) : `input[${index}]`;
  return new UserError('invalid_tool_call', problems ? first : where(error.message), {
    details: { ...error.details, field: where(field), ...(problems ? { problems } : {}) },
  });
}

/**
 * The offline driver: no model. It runs the `code_execution_call` and `tool_call` items of `input`
 * through the gates, in order (docs/contract.md §9); text items only make the user_input step. A blocked call
 * does not stop the script: the next item runs.
 */
export const scriptedDriver: ModelDriver = {
  name: 'scripted',
  executesInputCalls: true,

  checkInput(input: InteractionInput, context: InputCheckContext): void {
    if (typeof input === 'string') return;
    input.forEach((item, index) => {
      const call = scriptedCallOf(item);
      if (!call) return;
      try {
        resolveToolCall(call, context.vocabulary);
      } catch (error) {
        if (error instanceof UserError) throw atInput(error, index, item);
        throw error;
      }
      if (!context.enabledTools.includes(call.name)) {
        const known = context.enabledTools.join(', ');
        throw new UserError(
          'invalid_tool_call',
          `input[${index}]: ${call.name} is not enabled for this interaction (enabled: ${known})${call.name === 'code_execution' ? '; add {"type": "code_execution"} to tools' : ''}`,
          { details: { field: `input[${index}]` } },
        );
      }
    });
  },

  /** The agent's vocabulary if it has every tool the input calls, else the first that does. */
  vocabularyFor(input: InteractionInput, agentVocabulary: VocabularyId): VocabularyId {
    const names = scriptedCalls(input).map(({ call }) => call.name);
    const fits = (id: VocabularyId) =>
      names.every((name) => toolsOf(id).some((tool) => tool.name === name));
    if (fits(agentVocabulary)) return agentVocabulary;
    return (Object.keys(VOCABULARIES) as VocabularyId[]).find(fits) ?? agentVocabulary;
  },

  async run(context) {
    for (const { call } of scriptedCalls(context.input)) {
      if (context.signal.aborted) break;
      await context.callTool(call);
    }
  },
};
