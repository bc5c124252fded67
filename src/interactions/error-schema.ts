/**
 * The error body of every 4xx and 5xx answer: Google's envelope (AIP-193; docs/contract.md §9).
 * Depends on zod and the envelope's constants only.
 */
import { z } from 'zod';
import { RPC_STATUSES } from '../errors/errors.js';
import {
  BAD_REQUEST_TYPE,
  ERROR_DOMAIN,
  ERROR_INFO_TYPE,
  RETRY_INFO_TYPE,
} from '../errors/envelope.js';

const errorInfoSchema = z
  .object({
    '@type': z.literal(ERROR_INFO_TYPE),
    reason: z
      .string()
      .describe(
        "hookbox's literal error code: `invalid_argument`, `invalid_sources`, `not_found`, `unauthenticated`, …",
      ),
    domain: z.literal(ERROR_DOMAIN),
    metadata: z
      .record(z.string(), z.string())
      .describe(
        'The error\'s facts, as strings: `field` (the JSON path or header at fault), `retryable` (`"true"` or `"false"`), and others the error names (`limit`, `environment_id`, …).',
      ),
  })
  .describe('`google.rpc.ErrorInfo`: always the first entry.');

const badRequestSchema = z
  .object({
    '@type': z.literal(BAD_REQUEST_TYPE),
    fieldViolations: z.array(
      z.object({
        field: z.string().describe('The JSON path (or header) at fault.'),
        description: z.string().describe('The rule it broke.'),
      }),
    ),
  })
  .describe('`google.rpc.BadRequest`: present when the caller sent a field at fault.');

const retryInfoSchema = z
  .object({
    '@type': z.literal(RETRY_INFO_TYPE),
    retryDelay: z.string().describe('A protobuf Duration in JSON, e.g. `"1.5s"`.'),
  })
  .describe('`google.rpc.RetryInfo`: present when the server knows when to try again (429).');

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.number().int().describe('The HTTP status.'),
      message: z.string().describe('What is wrong; starts with the field at fault.'),
      status: z
        .enum(RPC_STATUSES)
        .describe('The `google.rpc.Code` name; hookbox codes map to them in docs/contract.md §9.'),
      details: z.array(
        z.discriminatedUnion('@type', [errorInfoSchema, badRequestSchema, retryInfoSchema]),
      ),
    }),
  })
  .describe("Every 4xx and 5xx answer, in Google's error envelope.");

export type ErrorBody = z.output<typeof errorBodySchema>;

/**
 * What a client accepts as an error answer: the envelope's three fields, with detail entries of any
 * type (a newer server's, a proxy's) kept for {@link factsOfEnvelope} to pick from.
 */
export const looseErrorBodySchema = z.object({
  error: z.looseObject({
    code: z.number().int(),
    message: z.string(),
    status: z.string(),
    details: z.array(z.looseObject({})).optional(),
  }),
});
