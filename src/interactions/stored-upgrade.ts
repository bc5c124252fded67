import { codeResultText } from './steps.js';
import { interactionSchema, type Interaction } from './interaction-schema.js';

/**
 * Reads back an interaction a state file or database holds, in today's shape. Interactions stored
 * before the steps took the Gemini SDKs' shapes (docs/gemini-sdks.md) still read: `tool_call` and
 * `tool_result` steps are the `function_call` and `function_result` they became, and a
 * `code_execution_result` whose `result` was the tool's object gets that object as
 * `structured_result` and what the code printed as its `result` text. Nothing is rewritten on disk.
 */
export function parseStoredInteraction(body: unknown): Interaction {
  if (
    body === null ||
    typeof body !== 'object' ||
    !Array.isArray((body as Record<string, unknown>).steps)
  )
    return interactionSchema.parse(body);
  const document = body as Record<string, unknown>;
  return interactionSchema.parse({
    ...document,
    steps: (document.steps as unknown[]).map(upgradeStep),
  });
}

function upgradeStep(step: unknown): unknown {
  if (step === null || typeof step !== 'object') return step;
  const fields = step as Record<string, unknown>;
  switch (fields.type) {
    case 'tool_call':
      return { ...fields, type: 'function_call' };
    case 'tool_result':
      return { ...fields, type: 'function_result' };
    case 'code_execution_result': {
      if ('structured_result' in fields) return step;
      const result = fields.result;
      if (result !== null && typeof result === 'object')
        return {
          ...fields,
          result: codeResultText(result as Record<string, unknown>),
          structured_result: result,
        };
      return {
        ...fields,
        result: typeof result === 'string' ? result : '',
        structured_result: null,
      };
    }
    default:
      return step;
  }
}
