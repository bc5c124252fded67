/**
 * Bounds on what one tool call adds to an environment's audit log (README "Limits", docs/operations.md
 * "Audit logs"): output full of control characters grows sixfold when written as JSON, so a capped
 * 1 MiB of output could otherwise add many megabytes per call.
 */
export const AUDIT_LIMITS = {
  /** One entry, serialized, in bytes. */
  maxEntryBytes: 256 * 1024,
  /** Everything one call adds (its hook records and its tool_call entry), in bytes. */
  maxCallBytes: 1024 * 1024,
  /** What an entry may still take when the call's budget is spent: the facts, without the output. */
  minEntryBytes: 4 * 1024,
} as const;

/** Room left for one call's entries. */
export interface AuditBudget {
  remainingBytes: number;
}

export function newCallBudget(): AuditBudget {
  return { remainingBytes: AUDIT_LIMITS.maxCallBytes };
}

/** The string leaves of a JSON value, each with a setter. */
function stringLeaves(value: unknown): { get: () => string; set: (text: string) => void }[] {
  const out: { get: () => string; set: (text: string) => void }[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const inner = record[key];
      if (typeof inner === 'string')
        out.push({ get: () => record[key] as string, set: (text) => (record[key] = text) });
      else if (inner !== null && typeof inner === 'object') stack.push(inner);
    }
  }
  return out;
}

/**
 * One line of JSON for `entry`, at most `limitBytes` long (plus a small marker): when it is longer,
 * the longest strings are cut, each ending in `…[truncated]`, and the entry says
 * `audit_truncated: {bytes}` (how long it was). The entry is copied, never changed.
 */
export function boundedLine(entry: object, limitBytes: number): string {
  const line = JSON.stringify(entry);
  const bytes = Buffer.byteLength(line);
  if (bytes <= limitBytes) return line;
  const copy = JSON.parse(line) as Record<string, unknown>;
  copy.audit_truncated = { bytes };
  const leaves = stringLeaves(copy);
  let size = Buffer.byteLength(JSON.stringify(copy));
  for (let round = 0; round < 64 && size > limitBytes; round++) {
    const longest = leaves.reduce((a, b) => (b.get().length > a.get().length ? b : a), leaves[0]!);
    const text = longest.get();
    if (text.length <= 64) break;
    const serialized = Buffer.byteLength(JSON.stringify(text));
    const excess = size - limitBytes;
    // Escaped characters take up to 6 bytes in JSON: cut in proportion to the serialized size.
    const keep = Math.max(
      32,
      Math.floor((text.length * Math.max(0, serialized - excess)) / serialized) - 32,
    );
    longest.set(`${text.slice(0, keep)}…[truncated]`);
    size = Buffer.byteLength(JSON.stringify(copy));
  }
  return JSON.stringify(copy);
}
