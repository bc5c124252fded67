/**
 * Reads an error answer of the HTTP API (Google's envelope, docs/contract.md §9) into the facts
 * tests check: the HTTP status, hookbox's literal code, the field at fault and the message. Tests
 * use this instead of reading `body.error.*` directly, so the envelope's layout is read in one place.
 */
import { looseErrorBodySchema } from '../../src/interactions/schema.js';
import { factsOfEnvelope } from '../../src/errors/index.js';

export interface ApiError {
  /** The HTTP status the body states (`error.code`). */
  httpStatus: number;
  /** hookbox's literal error code (`not_found`, `invalid_argument`, …): ErrorInfo's `reason`. */
  code: string;
  /** The field at fault, when the error names one. */
  field: string | undefined;
  message: string;
  /** The `google.rpc.Code` name (`NOT_FOUND`, `INVALID_ARGUMENT`, …). */
  status: string;
  /** ErrorInfo's metadata (strings) without `retryable`: `field` and the error's other facts. */
  details: Record<string, string>;
  retryable: boolean;
  /** The rule the field broke (BadRequest's field violation), when a field is at fault. */
  rule: string | undefined;
}

export function apiErrorOf(body: unknown): ApiError {
  const parsed = looseErrorBodySchema.safeParse(body);
  if (!parsed.success) throw new Error(`not an error answer: ${JSON.stringify(body)}`);
  const facts = factsOfEnvelope(parsed.data);
  if (facts.code === undefined) throw new Error(`no hookbox ErrorInfo: ${JSON.stringify(body)}`);
  const violations = parsed.data.error.details?.find(
    (entry) => entry['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  )?.fieldViolations as { description: string }[] | undefined;
  return {
    httpStatus: facts.httpStatus,
    code: facts.code,
    field: facts.field,
    message: facts.message,
    status: facts.status,
    details: facts.details,
    retryable: facts.retryable,
    rule: violations?.[0]?.description,
  };
}
