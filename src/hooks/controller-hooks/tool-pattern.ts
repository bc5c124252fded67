import { UserError } from '../../errors/errors.js';

/**
 * Which tools a policy rule covers: one exact name, every name with a prefix (`server/*`), or every
 * tool (`*`). Deliberately not a regular expression: rules must be easy to rank by specificity.
 */
export type ToolPattern =
  | { readonly kind: 'exact'; readonly name: string }
  | { readonly kind: 'prefix'; readonly prefix: string }
  | { readonly kind: 'global' };

/**
 * @param field names the pattern in the error, for example `rules[2].tool`.
 * @throws UserError for an empty pattern, surrounding whitespace, or a `*` anywhere but at the end.
 */
export function parseToolPattern(pattern: string, field: string): ToolPattern {
  const fail = (rule: string): never => {
    throw new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
  };
  if (typeof pattern !== 'string' || pattern === '')
    return fail('the tool pattern must not be empty');
  if (pattern.trim() !== pattern)
    return fail(`the tool pattern ${JSON.stringify(pattern)} has surrounding whitespace`);
  if (pattern === '*') return { kind: 'global' };
  const star = pattern.indexOf('*');
  if (star === -1) return { kind: 'exact', name: pattern };
  if (star !== pattern.length - 1) {
    return fail(
      `the tool pattern ${JSON.stringify(pattern)} is not a tool name, a prefix ending in "*" (such as "server/*") or "*"`,
    );
  }
  return { kind: 'prefix', prefix: pattern.slice(0, -1) };
}

export function patternMatches(pattern: ToolPattern, toolName: string): boolean {
  switch (pattern.kind) {
    case 'exact':
      return toolName === pattern.name;
    case 'prefix':
      return toolName.startsWith(pattern.prefix);
    case 'global':
      return true;
  }
}

/**
 * A rank where higher means more specific: an exact name beats every prefix, a longer prefix beats a
 * shorter one, and `*` comes last. Two prefixes that match one name with one length are the same prefix.
 */
export function specificityOf(pattern: ToolPattern): number {
  switch (pattern.kind) {
    case 'exact':
      return Number.MAX_SAFE_INTEGER;
    case 'prefix':
      return pattern.prefix.length;
    case 'global':
      return 0;
  }
}
