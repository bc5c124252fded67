/**
 * Controller hooks for `hookbox serve --hooks operator-hooks.js` (compile this file first, or write
 * it in JavaScript). The module's default export is a hook or a list of hooks; they run in this order.
 */
// In your own project: import type { Hook } from 'hookbox';
import type { Hook } from '../../../src/hooks/controller-hooks/index.js';

const MAX_CALLS_PER_TURN = 20;

/** AWS access key ids; a real deployment would list every secret format it cares about. */
const SECRET = /AKIA[0-9A-Z]{16}/g;

/** Refuses calls once a turn has made too many; the count lives in the interaction's store. */
export const callBudget: Hook = {
  name: 'call-budget',
  async beforeToolCall(context) {
    // A call made outside an interaction (`hookbox call`) counts against its environment instead.
    const scope = context.store.at('interaction') ?? context.store.at('environment');
    const calls = await scope.update(
      'calls',
      (count) => (typeof count === 'number' ? count : 0) + 1,
    );
    if (calls > MAX_CALLS_PER_TURN) {
      return {
        decision: 'deny',
        reason: `this turn has used its ${MAX_CALLS_PER_TURN} tool calls`,
      };
    }
  },
};

/** Makes every bash snippet stop at its first failing command: an argument rewrite. */
export const strictBash: Hook = {
  name: 'strict-bash',
  beforeToolCall(_context, call) {
    const language = call.args['language'] ?? 'bash';
    if (call.name !== 'code_execution' || language !== 'bash') return;
    return { args: { ...call.args, code: `set -euo pipefail\n${String(call.args['code'])}` } };
  },
};

/** Hides secrets from the model; the record keeps the raw result. */
export const redactSecrets: Hook = {
  name: 'redact-secrets',
  afterToolCall(_context, _call, result) {
    let changed = false;
    const redacted = Object.fromEntries(
      Object.entries(result).map(([key, value]) => {
        if (typeof value !== 'string') return [key, value];
        const clean = value.replace(SECRET, '[redacted]');
        changed ||= clean !== value;
        return [key, clean];
      }),
    );
    // Returning nothing keeps the result as it is, and the record says no hook rewrote it.
    if (changed) return { result: redacted };
  },
};

/** Adds a hint to "not found" errors; the call stays failed. */
export const pathHint: Hook = {
  name: 'path-hint',
  onToolError(_context, _call, errorText) {
    if (!/not found|no such file/i.test(errorText)) return;
    return { message: `${errorText} (relative paths start at /workspace)` };
  },
};

export default [callBudget, strictBash, redactSecrets, pathHint];
