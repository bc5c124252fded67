// Google's error envelope (AIP-193) from hookbox's errors, and back (docs/contract.md §9).
import { describe, expect, it } from 'vitest';
import {
  envelopeOf,
  factsOfEnvelope,
  hookboxErrorOf,
  httpStatusOf,
  rpcStatusOf,
  SystemError,
  UserError,
  type HookboxError,
  type SystemErrorCode,
  type UserErrorCode,
} from '../../../src/errors/index.js';
import { errorBodySchema } from '../../../src/interactions/schema.js';

const USER_CODES: UserErrorCode[] = [
  'invalid_argument',
  'invalid_sources',
  'invalid_hooks_config',
  'invalid_tool_call',
  'invalid_template',
  'unsupported',
  'not_found',
  'unauthenticated',
  'payload_too_large',
  'conflict',
  'permission_denied',
  'quota_exceeded',
];
const SYSTEM_CODES: SystemErrorCode[] = [
  'engine_unavailable',
  'image_build_failed',
  'sandbox_failed',
  'sandbox_agent_lost',
  'sandbox_agent_incompatible',
  'sandbox_protocol_violation',
  'environment_lost',
  'timeout',
  'credentials_unavailable',
  'internal',
];

// google.rpc.Code's own HTTP mapping (google/rpc/code.proto) for the names the table uses.
const HTTP_OF_STATUS: Record<string, number[]> = {
  INVALID_ARGUMENT: [400, 413],
  NOT_FOUND: [404, 410],
  UNAUTHENTICATED: [401],
  PERMISSION_DENIED: [403],
  ABORTED: [409],
  RESOURCE_EXHAUSTED: [429],
  INTERNAL: [500, 502],
  UNAVAILABLE: [502, 503],
  DEADLINE_EXCEEDED: [504],
};

describe('the code table', () => {
  it.each(USER_CODES.map((code) => [code]))('user error %s: a 4xx and a status name', (code) => {
    const error = new UserError(code, 'x');
    expect(httpStatusOf(error)).toBeGreaterThanOrEqual(400);
    expect(httpStatusOf(error)).toBeLessThan(500);
    expect(HTTP_OF_STATUS[rpcStatusOf(error)]).toContain(httpStatusOf(error));
  });

  it.each(SYSTEM_CODES.map((code) => [code]))(
    'system error %s: a 5xx (or 410) and a status name',
    (code) => {
      const error = new SystemError(code, 'x');
      expect(httpStatusOf(error) >= 500 || httpStatusOf(error) === 410).toBe(true);
      expect(HTTP_OF_STATUS[rpcStatusOf(error)]).toContain(httpStatusOf(error));
    },
  );
});

describe('envelopeOf', () => {
  it('a field at fault: ErrorInfo with string metadata, then BadRequest with the rule', () => {
    const error = new UserError('payload_too_large', 'body: larger than the limit of 10 bytes', {
      details: { field: 'body', limit: 10, nested: { a: [1] }, gone: undefined },
    });
    const body = envelopeOf(error);
    expect(body).toEqual({
      error: {
        code: 413,
        message: 'body: larger than the limit of 10 bytes',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'payload_too_large',
            domain: 'hookbox.dev',
            metadata: { field: 'body', limit: '10', nested: '{"a":[1]}', retryable: 'false' },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'body', description: 'larger than the limit of 10 bytes' }],
          },
        ],
      },
    });
    expect(errorBodySchema.parse(body)).toEqual(body);
  });

  it('a message not led by its field keeps the whole message as the rule', () => {
    const body = envelopeOf(
      new UserError('invalid_argument', 'no key given', { details: { field: 'x' } }),
    );
    expect(body.error.details[1]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'x', description: 'no key given' }],
    });
  });

  it('a quota: RESOURCE_EXHAUSTED with RetryInfo', () => {
    const body = envelopeOf(
      new UserError('quota_exceeded', 'tenant t is past its 5 requests per second', {
        details: { quota: 'requests_per_second', retry_after_s: 0.2 },
      }),
    );
    expect(body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(body.error.details).toHaveLength(2);
    expect(body.error.details[1]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '0.2s',
    });
    expect(errorBodySchema.parse(body)).toEqual(body);
  });

  it('a system error: no BadRequest, retryable in the metadata', () => {
    const body = envelopeOf(
      new SystemError('sandbox_agent_lost', 'the stream broke', {
        retryable: true,
        details: { environment_id: 'env_1', field: 'environment' },
      }),
    );
    expect(body.error).toMatchObject({ code: 502, status: 'UNAVAILABLE' });
    expect(body.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'sandbox_agent_lost',
        domain: 'hookbox.dev',
        metadata: { environment_id: 'env_1', field: 'environment', retryable: 'true' },
      },
    ]);
  });
});

describe('back from the envelope', () => {
  const roundTrip = (error: HookboxError) => hookboxErrorOf(factsOfEnvelope(envelopeOf(error)));

  it('a user error comes back a UserError with its literal code, field and message', () => {
    const back = roundTrip(
      new UserError('not_found', 'id: no such interaction', { details: { field: 'id' } }),
    );
    expect(back).toBeInstanceOf(UserError);
    expect(back).toMatchObject({
      code: 'not_found',
      message: 'id: no such interaction',
      details: { field: 'id', http_status: 404 },
      retryable: false,
    });
  });

  it('a system error comes back a SystemError, retryable kept', () => {
    const back = roundTrip(new SystemError('timeout', 'took too long', { retryable: true }));
    expect(back).toBeInstanceOf(SystemError);
    expect(back).toMatchObject({ code: 'timeout', retryable: true });
  });

  it('a code this version does not know: by its HTTP status, the code kept in details', () => {
    const facts = factsOfEnvelope({
      error: {
        code: 418,
        message: 'teapot',
        status: 'FAILED_PRECONDITION',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'teapot',
            domain: 'hookbox.dev',
            metadata: {},
          },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [] },
        ],
      },
    });
    expect(hookboxErrorOf(facts)).toMatchObject({
      kind: 'user',
      code: 'invalid_argument',
      details: { code: 'teapot', http_status: 418 },
    });
    const foreign = factsOfEnvelope({
      error: { code: 503, message: 'down', status: 'UNAVAILABLE' },
    });
    expect(foreign).toMatchObject({ code: undefined, field: undefined, retryable: false });
    expect(hookboxErrorOf(foreign)).toMatchObject({ kind: 'system', code: 'internal' });
  });

  it("another domain's ErrorInfo is not read as hookbox's code", () => {
    const facts = factsOfEnvelope({
      error: {
        code: 400,
        message: 'API key not valid',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
        ],
      },
    });
    expect(facts).toMatchObject({ code: undefined, details: {} });
  });
});
