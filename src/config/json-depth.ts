/**
 * Nesting limits for JSON that hookbox reads (README "Limits"): recursive code (validation, the
 * audit log's serializer) must never meet a value deep enough to overflow the stack, so depth is
 * measured first, without recursion, and a too-deep value is refused as bad input.
 */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of `[`/`{` in JSON text, counted in one pass (strings skipped). */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** The deepest nesting of arrays and objects in a parsed value, without recursion. */
export function valueDepth(value: unknown, stopAt = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > stopAt) return deepest;
    for (const inner of Object.values(item)) stack.push([inner, here]);
  }
  return deepest;
}
