/**
 * A foreign JSON value (a tool argument, a field of a hook's answer or of a tool result) as text: a
 * string as it is, nothing (`undefined`) as '', anything else as its JSON. `String()` would show an
 * object as "[object Object]", which says nothing about what the hook or the tool sent.
 */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}
