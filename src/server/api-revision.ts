import { UserError } from '../errors/index.js';

/**
 * The revision of the Interactions API hookbox serves: the `steps` shape the Gemini API adopted on
 * 2026-05-20 (its "breaking changes, May 2026" guide). A client pins a revision with the
 * `Api-Revision` request header (docs/contract.md §9, "Revisions").
 */
export const API_REVISION = '2026-05-20';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Accepts an `Api-Revision` header naming this revision or a later one (answered in this one, the
 * newest hookbox knows); refuses a malformed date, or an earlier revision, whose `outputs` shape
 * hookbox does not serve.
 */
export function checkApiRevision(header: string | string[] | undefined): void {
  if (header === undefined) return;
  const value = Array.isArray(header) ? header.join(',') : header.trim();
  const date = DATE.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value)
    throw new UserError(
      'invalid_argument',
      `api-revision: ${JSON.stringify(value.slice(0, 40))} is not a revision date (YYYY-MM-DD, e.g. ${API_REVISION})`,
      { details: { field: 'api-revision' } },
    );
  if (value < API_REVISION)
    throw new UserError(
      'invalid_argument',
      `api-revision: ${value} asks for the Interactions API before ${API_REVISION} (its outputs shape); hookbox serves revision ${API_REVISION} (steps) and later`,
      { details: { field: 'api-revision', served: API_REVISION } },
    );
}
