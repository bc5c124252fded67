import { RE2JS } from 're2js';
import type { ToolCall } from '../../tools/types.js';

/** A JSON value an argument can be compared with. */
export type ScalarValue = string | number | boolean | null;

/**
 * A `when` condition written as data, for policy files, which cannot carry code. Exactly one operator:
 * - `{arg, matches}`: the argument matches the RE2 pattern somewhere (anchor with `^…$` for the whole
 *   value). A string is matched as is; a number, boolean, object or list as its JSON text; a missing
 *   argument never matches.
 * - `{arg, equals}`: the argument is exactly this string, number, boolean or null.
 * - `{all: [...]}`, `{any: [...]}`, `{not: condition}`: combinations.
 */
export type PolicyCondition =
  | { readonly arg: string; readonly matches: string }
  | { readonly arg: string; readonly equals: ScalarValue }
  | { readonly all: readonly PolicyCondition[] }
  | { readonly any: readonly PolicyCondition[] }
  | { readonly not: PolicyCondition };

/**
 * Turns a validated condition into a predicate. Patterns are compiled here, once, so that a call pays
 * only for matching, which RE2 keeps linear in the length of the argument.
 * @throws when a pattern is not valid RE2; policy files check that earlier, with the JSON path.
 */
export function compileCondition(condition: PolicyCondition): (call: ToolCall) => boolean {
  if ('matches' in condition) {
    const pattern = RE2JS.compile(condition.matches);
    return (call) => {
      const text = argumentText(call.args[condition.arg]);
      return text !== undefined && pattern.matcher(text).find();
    };
  }
  if ('equals' in condition) {
    return (call) => call.args[condition.arg] === condition.equals;
  }
  if ('all' in condition) {
    const parts = condition.all.map(compileCondition);
    return (call) => parts.every((part) => part(call));
  }
  if ('any' in condition) {
    const parts = condition.any.map(compileCondition);
    return (call) => parts.some((part) => part(call));
  }
  const negated = compileCondition(condition.not);
  return (call) => !negated(call);
}

/** Why RE2 refuses a pattern, or `null` when it accepts it. */
export function re2SyntaxError(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function argumentText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
