import type { z } from 'zod';

/** `security-gate.pre_tool_execution[0].hooks[1].timeout`: the JSON path of a zod issue. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      const plain = /^[A-Za-z_$][\w$-]*$/.test(key);
      out += plain ? (out === '' ? key : `.${key}`) : `[${JSON.stringify(key)}]`;
    }
  }
  return out === '' ? '(top level)' : out;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The known key closest to `key`, if one is close enough to be a likely typo. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor((best?.length ?? 0) / 3)) ? best : undefined;
}

/**
 * One readable line per zod issue: the JSON path and what is wrong. Unknown keys name the key and,
 * where one is close, the known key it resembles (`knownKeysAt` gives the keys allowed at a path).
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeysAt: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const near = closestKey(key, knownKeysAt(issue.path));
        out.push({
          path: formatPath([...issue.path, key]),
          message: `unknown key ${JSON.stringify(key)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}`,
        });
      }
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return out;
}
