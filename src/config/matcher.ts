import { RE2JS } from 're2js';

/** A compiled hooks.json matcher: an RE2 regular expression matched against the WHOLE tool name. */
export interface ToolMatcher {
  /** The matcher as written (undefined when the rule omits it). */
  source: string | undefined;
  matches(toolName: string): boolean;
}

/** How many tool names one matcher remembers its answer for (a vocabulary has a few dozen). */
const MATCH_CACHE_ENTRIES = 256;

/** The matchers that match every tool (docs/contract.md §4): omitted, `*`, `""` and `.*`. */
function isCatchAll(source: string | undefined): boolean {
  return source === undefined || source === '*' || source === '' || source === '.*';
}

/** A glob-looking matcher rewritten as the regular expression its author most likely meant. */
function globHint(source: string): string | undefined {
  const hint = source.replace(/\.?\*+/g, '.*').replace(/(^|[^.\\])\?/g, '$1.');
  if (hint === source) return undefined;
  try {
    RE2JS.compile(hint);
    return hint;
  } catch {
    return undefined;
  }
}

export type MatcherCompilation =
  { ok: true; matcher: ToolMatcher } | { ok: false; message: string };

/**
 * Compiles a matcher. An invalid RE2 expression (a shell glob such as `*_file`, an unbalanced `(`)
 * is refused with the parser's reason and, for globs, the expression meant (`*_file` → `.*_file`):
 * on the Gemini runtime such a rule silently never fires, which hides a broken gate.
 */
export function compileMatcher(source: string | undefined): MatcherCompilation {
  if (isCatchAll(source)) return { ok: true, matcher: { source, matches: () => true } };
  const pattern = source as string;
  try {
    const regex = RE2JS.compile(pattern);
    // Tool names are few and every call (and every prestart guess) asks again; one RE2 match
    // costs ~0.05 ms, a lookup nothing (docs/gates.md, "Costs and bounds").
    const answers = new Map<string, boolean>();
    const matches = (toolName: string): boolean => {
      let answer = answers.get(toolName);
      if (answer === undefined) {
        answer = regex.matcher(toolName).matches();
        if (answers.size < MATCH_CACHE_ENTRIES) answers.set(toolName, answer);
      }
      return answer;
    };
    return { ok: true, matcher: { source, matches } };
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    const hint = globHint(pattern);
    return {
      ok: false,
      message:
        `matcher ${JSON.stringify(pattern)} is not a valid RE2 regular expression (${reason}); ` +
        `matchers are regular expressions matched against the whole tool name, not shell globs` +
        (hint ? `: did you mean ${JSON.stringify(hint)}?` : ''),
    };
  }
}
