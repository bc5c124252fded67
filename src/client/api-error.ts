import {
  factsOfEnvelope,
  hookboxErrorOf,
  type EnvelopeFacts,
  type HookboxError,
} from '../errors/index.js';
import type { z } from 'zod';
import type { looseErrorBodySchema } from '../interactions/schema.js';

/**
 * An error answer of the API (4xx/5xx) read back from Google's envelope (docs/contract.md §9), or a
 * server that could not be reached (`status` 0) or answered in an unexpected shape.
 */
export class HookboxApiError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** hookbox's literal error code (`invalid_argument`, `not_found`, `unauthenticated`, …). */
  readonly code: string;
  /**
   * The error's facts: `field`, the JSON path or header at fault, when there is one. From the
   * envelope they are strings (`google.rpc.ErrorInfo` metadata).
   */
  readonly details: Record<string, unknown>;
  /** The `google.rpc.Code` name (`NOT_FOUND`, …); undefined when no envelope came. */
  readonly rpcStatus: string | undefined;
  /** The server says the same request may succeed later. */
  readonly retryable: boolean;
  private readonly facts: EnvelopeFacts | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
    facts?: EnvelopeFacts,
  ) {
    super(message);
    this.name = 'HookboxApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.facts = facts;
    this.rpcStatus = facts?.status;
    this.retryable = facts?.retryable ?? false;
  }

  /** The error an envelope answer states; the status is the response's own. */
  static ofEnvelope(status: number, body: z.output<typeof looseErrorBodySchema>): HookboxApiError {
    const facts = factsOfEnvelope(body);
    return new HookboxApiError(
      status,
      facts.code ?? facts.status,
      facts.message,
      facts.details,
      facts,
    );
  }

  /** A bad request (4xx): the caller's mistake. */
  get isClientError(): boolean {
    return this.status >= 400 && this.status < 500;
  }

  /**
   * The server's error as hookbox's own: a UserError or SystemError with the literal code, so a
   * caller maps it to an exit code like a local one (errors/errors.ts). An answer that was no
   * envelope becomes a SystemError `internal` (a 4xx: a UserError `invalid_argument`).
   * @param message what the error says instead of the server's message
   */
  toHookboxError(message: string = this.message): HookboxError {
    const facts = this.facts ?? {
      httpStatus: this.status,
      status: 'UNKNOWN',
      code: this.code,
      details: {},
      retryable: false,
      field: undefined,
    };
    return hookboxErrorOf({ ...facts, message });
  }
}
