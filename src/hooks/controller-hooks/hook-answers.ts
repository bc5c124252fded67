// Reading a controller hook's answer: a decision's verdict, a presentation rewrite, and the record fields of each.
import type { HookOutcome } from '../../record/types.js';
import { frozenCopy, isPlainObject } from './frozen-copy.js';
import type { Hook, ToolArguments } from './hook.js';
import { describeError, type Settlement } from './invoke-hook.js';

/** The fields of one hook's record that its answer (or its not running) decides. */
export interface RecordFields {
  outcome: HookOutcome;
  reason: string | null;
  durationMs: number;
}

export type Verdict =
  | { kind: 'no_opinion'; args?: ToolArguments; record: RecordFields }
  | { kind: 'allow'; args?: ToolArguments; record: RecordFields }
  | { kind: 'deny'; reason: string; args?: undefined; record: RecordFields };

/**
 * Reads a decision hook's answer. Anything that is not clearly "no opinion", "allow" or a rewrite
 * refuses, because a typo in a gate (`{decison: 'deny'}`) must not let calls through.
 */
export function readVerdict(
  hook: Hook,
  settlement: Settlement,
  subject: 'call' | 'turn',
  timeoutMs: number,
  mayRewriteArgs: boolean,
): Verdict {
  const refuse = (outcome: HookOutcome, reason: string): Verdict => ({
    kind: 'deny',
    reason,
    record: { outcome, reason, durationMs: settlement.durationMs },
  });
  if (settlement.kind === 'threw') {
    return refuse(
      'error',
      `hook "${hook.name}" failed, so the ${subject} is refused: ${describeError(settlement.error)}`,
    );
  }
  if (settlement.kind === 'timed_out') {
    return refuse(
      'timeout',
      `hook "${hook.name}" did not decide within ${timeoutMs} ms, so the ${subject} is refused`,
    );
  }
  const { value, durationMs } = settlement;
  const unrecognized = (): Verdict =>
    refuse(
      'unrecognized',
      `hook "${hook.name}" returned something that is not a decision, so the ${subject} is refused`,
    );
  if (value === undefined || value === null) {
    return { kind: 'no_opinion', record: { outcome: 'allow', reason: null, durationMs } };
  }
  if (!isPlainObject(value)) return unrecognized();
  let args: ToolArguments | undefined;
  if ('args' in value && value['decision'] !== 'deny') {
    if (!mayRewriteArgs || !isPlainObject(value['args'])) return unrecognized();
    try {
      args = frozenCopy(value['args']);
    } catch {
      return unrecognized();
    }
  }
  const rewroteNote = args === undefined ? null : 'rewrote the arguments';
  switch (value['decision']) {
    case undefined:
      return args === undefined
        ? unrecognized()
        : {
            kind: 'no_opinion',
            args,
            record: { outcome: 'allow', reason: rewroteNote, durationMs },
          };
    case 'allow': {
      const reason =
        typeof value['reason'] === 'string' && value['reason'] !== '' ? value['reason'] : null;
      const recorded = [reason, rewroteNote].filter((part) => part !== null).join('; ') || null;
      return { kind: 'allow', args, record: { outcome: 'allow', reason: recorded, durationMs } };
    }
    case 'deny': {
      // An intended refusal without a reason still refuses; the model is told who refused.
      const reason =
        typeof value['reason'] === 'string' && value['reason'].trim() !== ''
          ? value['reason']
          : `the ${subject} was refused by hook "${hook.name}"`;
      return { kind: 'deny', reason, record: { outcome: 'deny', reason, durationMs } };
    }
    default:
      return unrecognized();
  }
}

export type Rewrite<T> =
  { kind: 'unchanged' } | { kind: 'rewritten'; frozenValue: T } | { kind: 'unrecognized' };

/** Reads a presentation hook's answer: nothing, or an object whose only meaningful key is `key`. */
export function readRewrite<T>(
  value: unknown,
  key: 'result' | 'message',
  isValid: (candidate: unknown) => candidate is T,
): Rewrite<T> {
  if (value === undefined || value === null) return { kind: 'unchanged' };
  if (!isPlainObject(value) || !isValid(value[key])) return { kind: 'unrecognized' };
  try {
    return { kind: 'rewritten', frozenValue: frozenCopy(value[key]) };
  } catch {
    return { kind: 'unrecognized' };
  }
}

export function rewriteFields(
  kind: Rewrite<unknown>['kind'],
  what: string,
  settlement: { durationMs: number },
): RecordFields {
  const reason =
    kind === 'rewritten'
      ? `rewrote the ${what}`
      : kind === 'unrecognized'
        ? `returned something unrecognized; the ${what} is kept as it was`
        : null;
  return {
    outcome: kind === 'unrecognized' ? 'unrecognized' : 'ok',
    reason,
    durationMs: settlement.durationMs,
  };
}

export function failureFields(
  hook: Hook,
  settlement: Exclude<Settlement, { kind: 'returned' }>,
  timeoutMs: number,
  consequence: string,
): RecordFields {
  return settlement.kind === 'threw'
    ? {
        outcome: 'error',
        reason: `hook "${hook.name}" failed: ${describeError(settlement.error)}; ${consequence}`,
        durationMs: settlement.durationMs,
      }
    : {
        outcome: 'timeout',
        reason: `hook "${hook.name}" did not finish within ${timeoutMs} ms; ${consequence}`,
        durationMs: settlement.durationMs,
      };
}

/** Only a non-empty text may reword an error: an empty one could read as "no error" to a model. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** @param decidingOutcome how the hook that ended the dispatch ended. */
export function skippedFields(decidedBy: Hook, decidingOutcome: HookOutcome): RecordFields {
  const reason =
    decidingOutcome === 'allow' || decidingOutcome === 'deny'
      ? `not run: hook "${decidedBy.name}" already decided (${decidingOutcome})`
      : `not run: hook "${decidedBy.name}" failed (${decidingOutcome})`;
  return { outcome: 'skipped', reason, durationMs: 0 };
}

/** Records, as `skipped`, the hooks left after the one that ended the dispatch. */
export function skippedRecords<R>(
  rest: readonly Hook[],
  decidedBy: Hook,
  decidingOutcome: HookOutcome,
  record: (hook: Hook, fields: RecordFields) => R,
): R[] {
  return rest.map((skipped) => record(skipped, skippedFields(decidedBy, decidingOutcome)));
}
