import { envelopeOf, toHookboxError, UserError, type HookboxError } from '../errors/index.js';
import type { ErrorBody } from '../interactions/schema.js';

/**
 * The body of every error answer, Google's envelope: `{error: {code, message, status, details:
 * [ErrorInfo, BadRequest?, RetryInfo?]}}` (docs/contract.md §9). Typed as the schema the OpenAPI
 * document states, so the two cannot drift.
 */
export function errorBody(error: HookboxError): ErrorBody {
  return envelopeOf(error);
}

const MIB = 1024 * 1024;

/**
 * Turns whatever a request handler or Fastify threw into a HookboxError: Fastify's own request
 * errors (body too large, not JSON, wrong content type) become UserErrors naming what is wrong.
 */
export function requestErrorOf(error: unknown, bodyLimit: number): HookboxError {
  const fastify = error as { code?: string; statusCode?: number; message?: string; name?: string };
  switch (fastify.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new UserError(
        'payload_too_large',
        `body: larger than the limit of ${bodyLimit} bytes (${(bodyLimit / MIB).toFixed(0)} MiB)`,
        { details: { field: 'body', limit: bodyLimit } },
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UserError(
        'invalid_argument',
        'content-type: must be application/json (send -H "Content-Type: application/json")',
        { details: { field: 'content-type' } },
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new UserError('invalid_argument', 'body: empty; send a JSON object', {
        details: { field: 'body' },
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new UserError('invalid_argument', `body: not valid JSON (${fastify.message})`, {
        details: { field: 'body' },
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new UserError('invalid_argument', 'content-length: does not match the body', {
        details: { field: 'content-length' },
      });
  }
  if (fastify.name === 'SyntaxError' && fastify.statusCode === 400) {
    return new UserError('invalid_argument', `body: not valid JSON (${fastify.message})`, {
      details: { field: 'body' },
    });
  }
  if (
    typeof fastify.statusCode === 'number' &&
    fastify.statusCode >= 400 &&
    fastify.statusCode < 500 &&
    !(error instanceof Error && 'kind' in error)
  ) {
    return new UserError('invalid_argument', `request: ${fastify.message ?? 'refused'}`, {
      details: { field: 'request', fastify_code: fastify.code },
    });
  }
  return toHookboxError(error);
}
