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

type AnySchema = { _zod: { def: Record<string, unknown> } };

function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let i = 0; i < 10; i++) {
    const def = current._zod.def;
    const inner = (def.innerType ?? (def.type === 'pipe' ? def.in : undefined)) as
      AnySchema | undefined;
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/**
 * The keys an object schema allows at a JSON path, found by walking the schema, so that unknown-key
 * messages can suggest the key that was meant. Unions offer the keys of all their options.
 */
export function knownKeysOf(schema: unknown): (path: readonly PropertyKey[]) => readonly string[] {
  const at = (node: AnySchema, path: readonly PropertyKey[]): string[] => {
    const current = unwrap(node);
    const def = current._zod.def;
    if (def.type === 'union' || def.type === 'discriminatedUnion') {
      return [...new Set((def.options as AnySchema[]).flatMap((option) => at(option, path)))];
    }
    if (path.length === 0) return def.type === 'object' ? Object.keys(def.shape as object) : [];
    const [head, ...rest] = path;
    if (def.type === 'object') {
      const child = (def.shape as Record<string, AnySchema>)[String(head)];
      return child ? at(child, rest) : [];
    }
    if (def.type === 'array') return at(def.element as AnySchema, rest);
    if (def.type === 'record') return at(def.valueType as AnySchema, rest);
    return [];
  };
  return (path) => at(schema as AnySchema, path);
}
