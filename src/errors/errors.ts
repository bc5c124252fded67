/**
 * One error hierarchy for the whole project. A {@link UserError} is the caller's mistake (bad input,
 * unknown id, refused request): it maps to HTTP 4xx and CLI exit 2 and is reported without a stack
 * trace. A {@link SystemError} is ours or the engine's: HTTP 5xx, CLI exit 1.
 */
/**
 * Every error code, with what it becomes on the wire: whose mistake it is (`user`: HTTP 4xx, CLI
 * exit 2; `system`: HTTP 5xx, CLI exit 1), the HTTP status, and the `google.rpc.Code` name the API's
 * error envelope carries in `status` (Google's AIP-193; docs/contract.md §9). The one place where a
 * code is given a meaning outside the process; the code unions below are read off it.
 */
const WIRE = {
  invalid_argument: { kind: 'user', http: 400, status: 'INVALID_ARGUMENT' },
  invalid_sources: { kind: 'user', http: 400, status: 'INVALID_ARGUMENT' },
  invalid_hooks_config: { kind: 'user', http: 400, status: 'INVALID_ARGUMENT' },
  invalid_tool_call: { kind: 'user', http: 400, status: 'INVALID_ARGUMENT' },
  invalid_template: { kind: 'user', http: 400, status: 'INVALID_ARGUMENT' },
  unsupported: { kind: 'user', http: 400, status: 'INVALID_ARGUMENT' },
  not_found: { kind: 'user', http: 404, status: 'NOT_FOUND' },
  unauthenticated: { kind: 'user', http: 401, status: 'UNAUTHENTICATED' },
  // Google's frontends refuse an oversized body as INVALID_ARGUMENT; the HTTP status stays 413.
  payload_too_large: { kind: 'user', http: 413, status: 'INVALID_ARGUMENT' },
  // A state conflict (in use, being restored, exists already): AIP-193's 409 for concurrency.
  conflict: { kind: 'user', http: 409, status: 'ABORTED' },
  permission_denied: { kind: 'user', http: 403, status: 'PERMISSION_DENIED' },
  quota_exceeded: { kind: 'user', http: 429, status: 'RESOURCE_EXHAUSTED' },
  engine_unavailable: { kind: 'system', http: 503, status: 'UNAVAILABLE' },
  image_build_failed: { kind: 'system', http: 500, status: 'INTERNAL' },
  sandbox_failed: { kind: 'system', http: 500, status: 'INTERNAL' },
  sandbox_agent_lost: { kind: 'system', http: 502, status: 'UNAVAILABLE' },
  sandbox_agent_incompatible: { kind: 'system', http: 502, status: 'INTERNAL' },
  sandbox_protocol_violation: { kind: 'system', http: 502, status: 'INTERNAL' },
  // The environment's container is gone for good: what was asked for no longer exists.
  environment_lost: { kind: 'system', http: 410, status: 'NOT_FOUND' },
  timeout: { kind: 'system', http: 504, status: 'DEADLINE_EXCEEDED' },
  credentials_unavailable: { kind: 'system', http: 503, status: 'UNAVAILABLE' },
  internal: { kind: 'system', http: 500, status: 'INTERNAL' },
} as const satisfies Record<string, { kind: 'user' | 'system'; http: number; status: RpcStatus }>;

/** The `google.rpc.Code` names an error envelope's `status` can hold (AIP-193). */
export const RPC_STATUSES = [
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'OUT_OF_RANGE',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'ABORTED',
  'ALREADY_EXISTS',
  'RESOURCE_EXHAUSTED',
  'CANCELLED',
  'DATA_LOSS',
  'UNKNOWN',
  'INTERNAL',
  'UNIMPLEMENTED',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
] as const;
export type RpcStatus = (typeof RPC_STATUSES)[number];

type Wire = typeof WIRE;
type CodeOfKind<K> = { [C in keyof Wire]: Wire[C]['kind'] extends K ? C : never }[keyof Wire];
export type UserErrorCode = CodeOfKind<'user'>;
export type SystemErrorCode = CodeOfKind<'system'>;

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

/** The HTTP status of an error's answer (the table above). */
export function httpStatusOf(error: HookboxError): number {
  return WIRE[error.code].http;
}

/** The `google.rpc.Code` name of an error's answer, its envelope's `status` (the table above). */
export function rpcStatusOf(error: HookboxError): RpcStatus {
  return WIRE[error.code].status;
}

/** Whose mistake a code names, or undefined for a code this version does not know. */
export function kindOfCode(code: string): 'user' | 'system' | undefined {
  return Object.hasOwn(WIRE, code) ? WIRE[code as keyof Wire].kind : undefined;
}

/** The one place where errors become CLI exit codes: 2 for the caller's mistakes, 1 for ours. */
export function exitCodeOf(error: HookboxError): 1 | 2 {
  return error.kind === 'user' ? 2 : 1;
}
