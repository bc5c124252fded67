/**
 * Reads an error answer of the HTTP API into the few facts tests check, whatever the envelope's
 * exact layout: the HTTP status, hookbox's literal code, the field at fault and the message. New
 * tests use this instead of reading `body.error.*` directly, so the envelope can change in one place.
 */
export interface ApiError {
  /** The HTTP status the body states. */
  httpStatus: number;
  /** hookbox's literal error code (`not_found`, `invalid_argument`, …). */
  code: string;
  /** The field at fault, when the error names one. */
  field: string | undefined;
  message: string;
}

export function apiErrorOf(body: unknown): ApiError {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  if (!error) throw new Error(`not an error answer: ${JSON.stringify(body)}`);
  const details = error.details as Record<string, unknown> | undefined;
  return {
    httpStatus: Number(error.status),
    code: String(error.code),
    field: typeof details?.field === 'string' ? details.field : undefined,
    message: String(error.message),
  };
}
