import { MAX_JSON_DEPTH, valueDepth } from '../config/json-depth.js';
import { UserError } from '../errors/index.js';

/** A UTF-16 surrogate half with no partner: it has no UTF-8 form, so no file or process can get it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string holds a lone surrogate (it cannot be written as UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Refuses arguments nested deeper than {@link MAX_JSON_DEPTH} (checked before any recursive code). */
export function checkArgumentDepth(toolName: string, args: unknown): void {
  if (valueDepth(args, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new UserError(
      'invalid_tool_call',
      `${toolName}: tool_call.args: nested deeper than ${MAX_JSON_DEPTH} levels`,
      { details: { field: 'tool_call.args', limit: MAX_JSON_DEPTH } },
    );
  }
}

/**
 * Refuses, before any hook runs, tool arguments the sandbox could only fail on: nesting deeper than
 * {@link MAX_JSON_DEPTH}, a lone surrogate in any string, a NUL in a path or in code (the kernel
 * takes neither in a path or an argument). Bad input is a 4xx / exit 2, never a runtime failure.
 */
export function checkArgumentText(
  toolName: string,
  args: Record<string, unknown>,
  nulFree: readonly string[],
): void {
  checkArgumentDepth(toolName, args);
  const stack: [unknown, string][] = Object.entries(args).map(([key, value]) => [value, key]);
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const field = `tool_call.args.${path}`;
      if (hasLoneSurrogate(value))
        throw new UserError(
          'invalid_tool_call',
          `${toolName}: ${field}: holds a lone UTF-16 surrogate, which has no UTF-8 form`,
          { details: { field } },
        );
      if (value.includes('\0') && nulFree.includes(path))
        throw new UserError('invalid_tool_call', `${toolName}: ${field}: must not contain NUL`, {
          details: { field },
        });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value))
        stack.push([inner, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`]);
    }
  }
}
