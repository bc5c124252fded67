import { decidePost, decidePre } from '../decision.js';
import type { Dialect } from './types.js';

/** The Gemini Interactions format (docs/contract.md §4, §6): the default of every group. */
export const geminiDialect: Dialect = {
  id: 'gemini',
  toolName: (call) => call.name,
  prePayload: (context) => ({ tool_call: context.call, environment_id: context.environmentId }),
  postPayload: (context, outcome) => ({
    tool_call: context.call,
    environment_id: context.environmentId,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    result: outcome.result,
  }),
  env: () => ({}),
  decidePre,
  decidePost,
};
