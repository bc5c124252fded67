/**
 * One error hierarchy for the whole project. A {@link UserError} is the caller's mistake (bad input,
 * unknown id, refused request): it maps to HTTP 4xx and CLI exit 2 and is reported without a stack
 * trace. A {@link SystemError} is ours or the engine's: HTTP 5xx, CLI exit 1.
 */
export type UserErrorCode =
  | 'invalid_argument'
  | 'invalid_sources'
  | 'invalid_hooks_config'
  | 'invalid_tool_call'
  | 'invalid_template'
  | 'unsupported'
  | 'not_found'
  | 'unauthenticated'
  | 'payload_too_large'
  | 'conflict'
  | 'permission_denied'
  | 'quota_exceeded';

export type SystemErrorCode =
  | 'engine_unavailable'
  | 'image_build_failed'
  | 'sandbox_failed'
  | 'sandbox_agent_lost'
  | 'sandbox_agent_incompatible'
  | 'sandbox_protocol_violation'
  | 'environment_lost'
  | 'timeout'
  | 'credentials_unavailable'
  | 'internal';

export interface ErrorDetails {
  /** Dotted or JSON path of the offending field, when there is one. */
  field?: string;
  [key: string]: unknown;
}

export abstract class HookboxError extends Error {
  abstract readonly kind: 'user' | 'system';
  abstract readonly code: UserErrorCode | SystemErrorCode;
  readonly details: ErrorDetails;
  readonly retryable: boolean;

  constructor(
    message: string,
    options: { details?: ErrorDetails; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }

  toJSON(): { code: string; message: string; details: ErrorDetails; retryable: boolean } {
    return {
      code: this.code,
      message: this.message,
      details: this.details,
      retryable: this.retryable,
    };
  }
}

export class UserError extends HookboxError {
  readonly kind = 'user' as const;
  readonly code: UserErrorCode;
  constructor(
    code: UserErrorCode,
    message: string,
    options: { details?: ErrorDetails; cause?: unknown } = {},
  ) {
    super(message, { ...options, retryable: false });
    this.code = code;
  }
}

export class SystemError extends HookboxError {
  readonly kind = 'system' as const;
  readonly code: SystemErrorCode;
  constructor(
    code: SystemErrorCode,
    message: string,
    options: { details?: ErrorDetails; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options);
    this.code = code;
  }
}

/** Wraps anything thrown into a HookboxError; unknown errors count as system errors. */
export function toHookboxError(error: unknown): HookboxError {
  if (error instanceof HookboxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SystemError('internal', message, { cause: error });
}

const HTTP_STATUS: Record<UserErrorCode | SystemErrorCode, number> = {
  invalid_argument: 400,
  invalid_sources: 400,
  invalid_hooks_config: 400,
  invalid_tool_call: 400,
  invalid_template: 400,
  unsupported: 400,
  not_found: 404,
  unauthenticated: 401,
  payload_too_large: 413,
  conflict: 409,
  permission_denied: 403,
  quota_exceeded: 429,
  engine_unavailable: 503,
  image_build_failed: 500,
  sandbox_failed: 500,
  sandbox_agent_lost: 502,
  sandbox_agent_incompatible: 502,
  sandbox_protocol_violation: 502,
  environment_lost: 410,
  timeout: 504,
  credentials_unavailable: 503,
  internal: 500,
};

/** The one place where errors become HTTP statuses. */
export function httpStatusOf(error: HookboxError): number {
  return HTTP_STATUS[error.code];
}

/** The one place where errors become CLI exit codes: 2 for the caller's mistakes, 1 for ours. */
export function exitCodeOf(error: HookboxError): 1 | 2 {
  return error.kind === 'user' ? 2 : 1;
}
