/**
 * Text from tool code, hooks or a model is shown in a terminal transcript (`hookbox call`,
 * `hookbox run`) only with its control characters made visible: an escape sequence or a carriage
 * return could otherwise move the cursor and rewrite what was printed (a denied call made to look
 * allowed). C0 and C1 controls, DEL and the Unicode bidi overrides are written as `\xNN` / `\uNNNN`.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS_AND_LINES = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escape(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** For a field shown on one line (a reason, an error): every control character, newlines too. */
export function visibleLine(text: string): string {
  return text.replace(CONTROLS_AND_LINES, escape);
}

/** For a block shown over several lines (stdout, file content): newlines and tabs stay. */
export function visibleBlock(text: string): string {
  return text.replace(CONTROLS, escape);
}
