import type { OnError } from '../config/hooks-config.js';
import type { HookOutcome } from '../record/types.js';

/** How a handler run ended, as the sandbox agent reports it. */
export interface HandlerRun {
  exit_code: number | null;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** For `http` handlers: the response status; absent for commands. */
  http_status?: number;
  /** A failure to run at all (connection refused, ...). */
  failure?: string;
  /** For `command` handlers: which process answered (docs/gates.md, "Prestart and workers"). */
  runner?: HookRunner;
  /** Why a prestarted process or a worker did not answer, when one was expected to. */
  runner_note?: string;
}

/**
 * Which process answered a command handler: one `spawned` for the event, one `prestarted` for it,
 * the handler's `worker`, or a spawn after the worker failed (`worker_fallback`).
 */
export type HookRunner = 'spawned' | 'prestarted' | 'worker' | 'worker_fallback';

export interface PreDecision {
  outcome: Exclude<HookOutcome, 'ok' | 'skipped'>;
  /** Whether the call is blocked: only an explicit deny, or a failure under `on_error: "deny"`. */
  blocks: boolean;
  reason: string | null;
  /** For `ask`: true when no cached approval may satisfy it (Antigravity's `force_ask`). */
  force?: boolean;
  /** Rewritten arguments, in the hook's dialect (Claude Code's `updatedInput`). */
  updatedInput?: Record<string, unknown>;
  /** Text for the model (Claude Code's `additionalContext`). */
  additionalContext?: string;
  /** The answer as given, for the record (capped). */
  rawAnswer?: string;
}

/** What a post hook came to: it cannot decide, but a dialect's hook may add text for the model. */
export interface PostDecision {
  outcome: 'ok' | 'error' | 'timeout';
  reason: string | null;
  additionalContext?: string;
  rawAnswer?: string;
}

const RAW_ANSWER_CHARS = 2000;

/** The answer as the record keeps it. */
export function rawAnswerOf(text: string): string | undefined {
  if (text === '') return undefined;
  return text.length > RAW_ANSWER_CHARS ? `${text.slice(0, RAW_ANSWER_CHARS)}…` : text;
}

const DEFAULT_DENY_REASON = 'Blocked by a pre_tool_execution hook.';

export function tail(text: string, max = 300): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `…${trimmed.slice(-max)}` : trimmed;
}

/** Why a run counts as failed, or undefined when it ran to completion (exit 0 / 2xx). */
export function failureOf(
  run: HandlerRun,
  timeoutSeconds: number,
): { outcome: 'error' | 'timeout'; reason: string } | undefined {
  if (run.timed_out) return { outcome: 'timeout', reason: `timed out after ${timeoutSeconds} s` };
  if (run.failure !== undefined) return { outcome: 'error', reason: run.failure };
  if (run.http_status !== undefined) {
    if (run.http_status < 200 || run.http_status > 299)
      return { outcome: 'error', reason: `HTTP status ${run.http_status}` };
    return undefined;
  }
  if (run.exit_code !== 0) {
    const stderr = tail(run.stderr);
    return {
      outcome: 'error',
      reason: `exited with code ${run.exit_code}${stderr ? `: ${stderr}` : ''}`,
    };
  }
  return undefined;
}

/**
 * Reads a pre hook's answer (docs/contract.md §6). Only stdout that is one JSON object with `"decision": "deny"`
 * blocks; `{"decision": "allow"}` allows; anything else — other JSON, plain text, empty output, a
 * non-zero exit, a crash, a timeout, a non-2xx answer — allows, unless the handler says
 * `on_error: "deny"`, under which only an explicit allow lets the call through.
 */
export function decidePre(
  run: HandlerRun,
  handler: { onError: OnError; timeoutSeconds: number },
): PreDecision {
  const failClosed = handler.onError === 'deny';
  const failure = failureOf(run, handler.timeoutSeconds);
  if (failure) {
    return {
      outcome: failure.outcome,
      blocks: failClosed,
      reason: failClosed
        ? `hook failed (${failure.reason}) and its on_error is "deny"`
        : failure.reason,
    };
  }
  let answer: unknown;
  try {
    answer = run.truncated ? undefined : JSON.parse(run.stdout);
  } catch {
    answer = undefined;
  }
  if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
    const { decision, reason } = answer as { decision?: unknown; reason?: unknown };
    if (decision === 'deny') {
      return {
        outcome: 'deny',
        blocks: true,
        reason: typeof reason === 'string' && reason !== '' ? reason : DEFAULT_DENY_REASON,
      };
    }
    if (decision === 'allow')
      return {
        outcome: 'allow',
        blocks: false,
        reason: typeof reason === 'string' ? reason : null,
      };
    // docs/contract.md §11: `ask` is a decision of its own; the approver (or its absence) settles it.
    if (decision === 'ask')
      return {
        outcome: 'ask',
        blocks: false,
        reason: typeof reason === 'string' && reason !== '' ? reason : null,
      };
  }
  const shown = tail(run.stdout, 120);
  const what = shown === '' ? 'empty output' : `output is not a decision: ${JSON.stringify(shown)}`;
  return {
    outcome: 'unrecognized',
    blocks: failClosed,
    reason: failClosed ? `${what}, and its on_error is "deny"` : what,
  };
}

/**
 * The docs/contract.md §6 reading of a run that is neither a failure nor a decision a dialect knows: it lets
 * the call through, unless the handler says `on_error: "deny"`.
 */
export function undecided(
  what: string,
  handler: { onError: OnError },
  outcome: 'unrecognized' | 'error' = 'unrecognized',
): PreDecision {
  const failClosed = handler.onError === 'deny';
  return {
    outcome,
    blocks: failClosed,
    reason: failClosed ? `${what}, and its on_error is "deny"` : what,
  };
}

/** A failed run (crash, timeout, non-2xx), read as docs/contract.md §6 says. */
export function failedPre(
  run: HandlerRun,
  handler: { onError: OnError; timeoutSeconds: number },
): PreDecision | undefined {
  const failure = failureOf(run, handler.timeoutSeconds);
  if (!failure) return undefined;
  const failClosed = handler.onError === 'deny';
  return {
    outcome: failure.outcome,
    blocks: failClosed,
    reason: failClosed
      ? `hook failed (${failure.reason}) and its on_error is "deny"`
      : failure.reason,
  };
}

/** A post hook cannot decide anything: it ends `ok`, `error` or `timeout` (docs/contract.md §6). */
export function decidePost(run: HandlerRun, handler: { timeoutSeconds: number }): PostDecision {
  const failure = failureOf(run, handler.timeoutSeconds);
  return failure ?? { outcome: 'ok', reason: null };
}
