import { z } from 'zod';
import { SystemError } from '../../errors/errors.js';
import { throwIfCancelled } from './cancel.js';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  retryAfterMsOf,
  sleepUnlessCancelled,
  type RetryPolicy,
} from './retry.js';

export { throwIfCancelled } from './cancel.js';

/** One JSON POST to a model API. */
export interface JsonPost {
  /** The API's name as messages show it, e.g. `Gemini API`. */
  api: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** How long the whole exchange (connect, answer, body) may take. */
  timeoutMs: number;
  /** The interaction's signal: when it aborts, the request is abandoned. */
  signal: AbortSignal;
  fetch: typeof fetch;
  /** When a failure that may pass is tried again. @default {@link DEFAULT_RETRY_POLICY} */
  retry?: RetryPolicy;
}

/** What a non-2xx answer says, in the API's own words, plus fields for `details`. */
export interface ApiFailure {
  message: string;
  details?: Record<string, unknown>;
  /** A wait the body asks for (Gemini's `RetryInfo.retryDelay`); a `Retry-After` header wins. */
  retryAfterMs?: number;
}

/** Turns a non-2xx answer (its status and JSON body, or `undefined` when not JSON) into words. */
export type DescribeFailure = (status: number, body: unknown, text: string) => ApiFailure;

/** How long one model request may take by default: long answers of slow local models fit in it. */
export const DEFAULT_MODEL_TIMEOUT_MS = 300_000;

/** 408, 429 and 5xx may succeed when tried again later; every other status will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** A failed try, and how long the API asked to wait before the next (when it said). */
class FailedTry extends Error {
  constructor(
    readonly error: SystemError,
    /** Whether another try may succeed (408, 429, 5xx, a broken connection; not a timeout). */
    readonly again: boolean,
    readonly waitMs: number | undefined,
  ) {
    super(error.message);
  }
}

/**
 * POSTs `body` as JSON and returns the parsed JSON answer. Every failure is a SystemError naming the
 * API: unreachable (retryable), no answer within `timeoutMs` (`timeout`, retryable), a non-2xx answer
 * (`internal`, the API's own message via `describe`, retryable for 408/429/5xx), or a 2xx answer
 * that is not JSON. Unreachable and 408/429/5xx are tried again per `retry`, waiting what
 * `Retry-After` (or the body) asks, else a doubling backoff; a timeout is not (it already took
 * `timeoutMs`). Cancellation through `signal` throws as {@link throwIfCancelled} does, also while
 * waiting to retry (docs/drivers.md, Retries).
 */
export async function postJson(request: JsonPost, describe: DescribeFailure): Promise<unknown> {
  const policy = request.retry ?? DEFAULT_RETRY_POLICY;
  for (let retry = 0; ; retry++) {
    try {
      return await postOnce(request, describe);
    } catch (thrown) {
      if (!(thrown instanceof FailedTry)) throw thrown;
      const { error, again, waitMs } = thrown;
      if (!again || retry >= policy.maxRetries) throw error;
      if (waitMs !== undefined && waitMs > policy.maxDelayMs) {
        throw new SystemError(
          error.code,
          `${error.message} (The API asks to wait ${Math.ceil(waitMs / 1000)} s before trying again, longer than the ${policy.maxDelayMs} ms hookbox waits.)`,
          { retryable: true, details: { ...error.details, retry_after_ms: waitMs } },
        );
      }
      await sleepUnlessCancelled(waitMs ?? backoffMs(policy, retry + 1), request.signal);
    }
  }
}

async function postOnce(request: JsonPost, describe: DescribeFailure): Promise<unknown> {
  throwIfCancelled(request.signal);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  const where = `${request.api} at ${request.url}`;
  let status: number;
  let text: string;
  let headers: Headers;
  try {
    const response = await request.fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      signal,
    });
    status = response.status;
    headers = response.headers;
    text = await response.text();
  } catch (error) {
    throwIfCancelled(request.signal);
    if (timeout.aborted) {
      throw new SystemError(
        'timeout',
        `The ${where} did not answer within ${request.timeoutMs} ms.`,
        { retryable: true, details: { api: request.api }, cause: error },
      );
    }
    const unreachable = new SystemError(
      'internal',
      `Could not reach the ${where}: ${describeCause(error)}.`,
      { retryable: true, details: { api: request.api }, cause: error },
    );
    throw new FailedTry(unreachable, true, undefined);
  }

  const body = parseJson(text);
  if (status < 200 || status > 299) {
    const failure = describe(status, body, text);
    const error = new SystemError('internal', failure.message, {
      retryable: isRetryableStatus(status),
      details: { api: request.api, status, ...failure.details },
    });
    const waitMs = retryAfterMsOf(headers) ?? failure.retryAfterMs;
    throw new FailedTry(error, isRetryableStatus(status), waitMs);
  }
  if (body === undefined) {
    throw new SystemError(
      'internal',
      `The ${where} answered HTTP ${status} with a body that is not JSON: ${excerpt(text)}`,
      { details: { api: request.api, status } },
    );
  }
  return body;
}

/** Names a failure hint speaks of: where the key and the model are configured. */
export interface HintNames {
  /** E.g. `GEMINI_API_KEY`. */
  keyVariable: string;
  /** E.g. `gemini-2.5-flash` (set by HOOKBOX_GEMINI_MODEL)`. */
  model: string;
}

export type FailureKind = 'key' | 'model' | 'rate' | 'upstream' | 'request';

/** What kind of failure a status usually is, when the body says no more. */
export function failureKindOf(status: number): FailureKind {
  if (status === 401 || status === 403) return 'key';
  if (status === 404) return 'model';
  if (status === 429) return 'rate';
  if (isRetryableStatus(status)) return 'upstream';
  return 'request';
}

/** One sentence telling the operator what to check, for a kind of failure. */
export function failureHint(kind: FailureKind, names: HintNames): string {
  switch (kind) {
    case 'key':
      return `The API refused hookbox's API key (or its absence): check ${names.keyVariable} where hookbox runs.`;
    case 'model':
      return `Check the model name ${names.model} and the base URL.`;
    case 'rate':
      return 'The rate limit or quota of the key is used up; try again later.';
    case 'upstream':
      return 'The failure is on the API side; try again later.';
    case 'request':
      return 'The API refused the conversation or the tool declarations hookbox sent it.';
  }
}

/**
 * An answer's body checked against the shape the API documents: the parsed body, or an `internal`
 * error naming the API, what did not match, and the start of the body.
 */
export function parseAnswer<T>(api: string, schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new SystemError(
    'internal',
    `The ${api} answered with an unexpected body (${z.prettifyError(parsed.error)}): ${excerpt(JSON.stringify(raw))}`,
  );
}

/**
 * The message of a non-2xx answer: where it came from, the status with the API's own codes, the
 * API's own words (else the start of the body), and the hint for the operator.
 */
export function failureMessage(
  heading: string,
  status: number,
  codes: readonly (string | undefined)[],
  apiMessage: string | undefined,
  text: string,
  hint: string,
): string {
  const label = [`HTTP ${status}`, ...codes].filter(Boolean).join(' ');
  return `${heading} (${label}): ${asSentence(apiMessage ?? excerpt(text))} ${hint}`;
}

/** An API's own message, ending with a full stop so that a hint can follow it. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The start of a text, for messages. */
export function excerpt(text: string, max = 300): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat || '(empty)';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `fetch failed` says nothing; its cause (`connect ECONNREFUSED 127.0.0.1:1`) does. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error && cause.message !== '') return cause.message;
  return error.message;
}
