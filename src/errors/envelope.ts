/**
 * The API's error envelope, Google's (AIP-193, the `google.rpc.Status` JSON of Google's APIs), and
 * back: the official Gemini SDKs read `code` and `message` from it, and hookbox's own client reads
 * its literal code from the `ErrorInfo` entry (docs/contract.md §9).
 */
import {
  httpStatusOf,
  kindOfCode,
  rpcStatusOf,
  SystemError,
  UserError,
  type ErrorDetails,
  type HookboxError,
  type RpcStatus,
  type SystemErrorCode,
  type UserErrorCode,
} from './errors.js';

/** `ErrorInfo.domain`: the service that gave the `reason`. */
export const ERROR_DOMAIN = 'hookbox.dev';

const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';
export const ERROR_INFO_TYPE = `${TYPE_PREFIX}ErrorInfo`;
export const BAD_REQUEST_TYPE = `${TYPE_PREFIX}BadRequest`;
export const RETRY_INFO_TYPE = `${TYPE_PREFIX}RetryInfo`;

/** `google.rpc.ErrorInfo`: hookbox's literal code and the error's facts, as strings. */
export interface ErrorInfoDetail {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: typeof ERROR_DOMAIN;
  metadata: Record<string, string>;
}

/** `google.rpc.BadRequest`: the field at fault and the rule it broke. */
export interface BadRequestDetail {
  '@type': typeof BAD_REQUEST_TYPE;
  fieldViolations: { field: string; description: string }[];
}

/** `google.rpc.RetryInfo`: when to try again (a protobuf Duration in JSON, e.g. `"1.5s"`). */
export interface RetryInfoDetail {
  '@type': typeof RETRY_INFO_TYPE;
  retryDelay: string;
}

export type ErrorEnvelopeDetail = ErrorInfoDetail | BadRequestDetail | RetryInfoDetail;

/** The body of every 4xx and 5xx answer of the API. */
export interface ErrorEnvelope {
  error: {
    /** The HTTP status. */
    code: number;
    message: string;
    status: RpcStatus;
    details: ErrorEnvelopeDetail[];
  };
}

/** ErrorInfo's metadata holds strings only: numbers and flags as text, anything else as JSON. */
function metadataOf(details: ErrorDetails, retryable: boolean): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined) continue;
    metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  metadata.retryable = String(retryable);
  return metadata;
}

/** The rule a message states: messages start with the field at fault ("field: rule"). */
function ruleOf(message: string, field: string): string {
  return message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
}

/** An error as the API answers it. */
export function envelopeOf(error: HookboxError): ErrorEnvelope {
  const details: ErrorEnvelopeDetail[] = [
    {
      '@type': ERROR_INFO_TYPE,
      reason: error.code,
      domain: ERROR_DOMAIN,
      metadata: metadataOf(error.details, error.retryable),
    },
  ];
  const { field } = error.details;
  if (error.kind === 'user' && typeof field === 'string')
    details.push({
      '@type': BAD_REQUEST_TYPE,
      fieldViolations: [{ field, description: ruleOf(error.message, field) }],
    });
  const retryAfterSeconds = error.details.retry_after_s;
  if (typeof retryAfterSeconds === 'number')
    details.push({ '@type': RETRY_INFO_TYPE, retryDelay: `${retryAfterSeconds}s` });
  return {
    error: {
      code: httpStatusOf(error),
      message: error.message,
      status: rpcStatusOf(error),
      details,
    },
  };
}

/** What an error envelope says, in hookbox's terms. */
export interface EnvelopeFacts {
  /** The HTTP status the body states. */
  httpStatus: number;
  /** The `google.rpc.Code` name. */
  status: string;
  /** hookbox's literal code (ErrorInfo's `reason`), or undefined when the body has none of ours. */
  code: string | undefined;
  message: string;
  /** ErrorInfo's metadata without `retryable`: `field` and the other facts, as strings. */
  details: Record<string, string>;
  retryable: boolean;
  /** The field at fault: ErrorInfo's `field`, or the first field violation's. */
  field: string | undefined;
}

interface LooseEnvelope {
  error: {
    code: number;
    message: string;
    status: string;
    details?: readonly object[] | undefined;
  };
}

/** Reads an envelope (validated by the caller: errorEnvelopeSchema) into hookbox's facts. */
export function factsOfEnvelope(body: LooseEnvelope): EnvelopeFacts {
  const { error } = body;
  const entries = (error.details ?? []) as readonly Record<string, unknown>[];
  const info = entries.find(
    (entry) => entry['@type'] === ERROR_INFO_TYPE && entry.domain === ERROR_DOMAIN,
  );
  const metadata = { ...((info?.metadata as Record<string, string> | undefined) ?? {}) };
  const retryable = metadata.retryable === 'true';
  delete metadata.retryable;
  const violations = entries.find((entry) => entry['@type'] === BAD_REQUEST_TYPE)
    ?.fieldViolations as { field?: string }[] | undefined;
  const field = metadata.field ?? violations?.[0]?.field;
  return {
    httpStatus: error.code,
    status: error.status,
    code: typeof info?.reason === 'string' ? info.reason : undefined,
    message: error.message,
    details: metadata,
    retryable,
    field,
  };
}

/**
 * The HookboxError an envelope stands for, with its literal code; a code this version does not
 * know is a SystemError `internal` (4xx: UserError `invalid_argument`) keeping the code in details.
 */
export function hookboxErrorOf(facts: EnvelopeFacts): HookboxError {
  const details: ErrorDetails = { ...facts.details, http_status: facts.httpStatus };
  const kind = facts.code === undefined ? undefined : kindOfCode(facts.code);
  if (kind === 'user')
    return new UserError(facts.code as UserErrorCode, facts.message, { details });
  if (kind === 'system')
    return new SystemError(facts.code as SystemErrorCode, facts.message, {
      details,
      retryable: facts.retryable,
    });
  const unknown = { ...details, code: facts.code ?? facts.status };
  return facts.httpStatus >= 400 && facts.httpStatus < 500
    ? new UserError('invalid_argument', facts.message, { details: unknown })
    : new SystemError('internal', facts.message, { details: unknown, retryable: facts.retryable });
}
