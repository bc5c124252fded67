import { z } from 'zod';
import { UserError } from '../errors/index.js';
import { SOURCE_LIMITS } from './limits.js';

/** A file sent with the request, to be placed in the environment (SPEC §3). */
export interface InlineSource {
  type: 'inline';
  /**
   * Path relative to the environment root `/`; a leading `/` is accepted and ignored.
   *
   * Valid: `.agents/hooks.json`, `/.agents/hooks-scripts/gate.py`, `workspace/data/x.json`.
   * Invalid: `etc/passwd` (outside `.agents/` and `workspace/`), `workspace/../etc/x` (`..`),
   * `workspace//x` (empty segment), `workspace` (a folder, not a file), `workspace/.agents/x`
   * (the read-only mirror of `/.agents`).
   */
  target: string;
  content: string;
}

/** Where a source lands: the `/.agents` volume or the `/workspace` volume. */
export type SourceArea = 'agents' | 'workspace';

/** A validated source: its area, its path inside that area, and whether it is made executable. */
export interface PlacedSource {
  area: SourceArea;
  /** Path inside the area, without a leading slash, e.g. `hooks-scripts/gate.py`. */
  path: string;
  /** The absolute path inside the sandbox, e.g. `/.agents/hooks-scripts/gate.py`. */
  absolutePath: string;
  content: string;
  /** A source whose content starts with `#!` is made executable. */
  executable: boolean;
}

const inlineSourceSchema = z.strictObject({
  type: z.literal('inline'),
  target: z.string(),
  content: z.string(),
});

/** The zod schema of a request's `sources` (a trust boundary: HTTP bodies, CLI input). */
export const sourcesSchema = z.array(inlineSourceSchema);

function refuse(index: number, target: string, rule: string): never {
  throw new UserError(
    'invalid_sources',
    `sources[${index}].target ${JSON.stringify(target)}: ${rule}`,
    {
      details: { field: `sources[${index}].target`, target, rule },
    },
  );
}

function placeOne(source: InlineSource, index: number): PlacedSource {
  const target = source.target;
  if (target.includes('\0')) refuse(index, target, 'must not contain NUL');
  if (Buffer.byteLength(target) > SOURCE_LIMITS.maxTargetBytes) {
    refuse(index, target, `is longer than ${SOURCE_LIMITS.maxTargetBytes} bytes`);
  }
  const relative = target.startsWith('/') ? target.slice(1) : target;
  const segments = relative.split('/');
  for (const segment of segments) {
    if (segment === '')
      refuse(index, target, 'has an empty path segment (a doubled, leading or trailing "/")');
    if (segment === '..') refuse(index, target, 'must not contain ".." segments');
    if (segment === '.') refuse(index, target, 'must not contain "." segments');
    if (Buffer.byteLength(segment) > SOURCE_LIMITS.maxSegmentBytes) {
      refuse(index, target, `has a segment longer than ${SOURCE_LIMITS.maxSegmentBytes} bytes`);
    }
  }
  const [root, ...rest] = segments;
  if (root !== '.agents' && root !== 'workspace') {
    refuse(index, target, 'must be under ".agents/" or "workspace/"');
  }
  if (rest.length === 0)
    refuse(index, target, `names the folder "${root}" itself, not a file under it`);
  if (root === 'workspace' && rest[0] === '.agents') {
    refuse(
      index,
      target,
      'is under "workspace/.agents/", the read-only mirror of "/.agents"; use ".agents/..."',
    );
  }
  const path = rest.join('/');
  return {
    area: root === '.agents' ? 'agents' : 'workspace',
    path,
    absolutePath: `/${root}/${path}`,
    content: source.content,
    executable: source.content.startsWith('#!'),
  };
}

/**
 * Validates sources against SPEC §3 and the documented limits, before any container is made.
 * Throws a {@link UserError} (`invalid_sources`) naming the target and the rule.
 */
export function placeSources(input: unknown): PlacedSource[] {
  const parsed = sourcesSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ['sources', ...issue.path]
      .map((part, i) =>
        typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`,
      )
      .join('');
    throw new UserError('invalid_sources', `${field}: ${issue.message}`, { details: { field } });
  }
  const sources = parsed.data;
  if (sources.length > SOURCE_LIMITS.maxCount) {
    throw new UserError(
      'invalid_sources',
      `sources: ${sources.length} sources, over the limit of ${SOURCE_LIMITS.maxCount}`,
      {
        details: { field: 'sources', limit: SOURCE_LIMITS.maxCount },
      },
    );
  }
  let total = 0;
  const placed = sources.map((source, index) => {
    const bytes = Buffer.byteLength(source.content);
    if (bytes > SOURCE_LIMITS.maxSourceBytes) {
      throw new UserError(
        'invalid_sources',
        `sources[${index}].content (target ${JSON.stringify(source.target)}): ${bytes} bytes, over the limit of ${SOURCE_LIMITS.maxSourceBytes} bytes for one source`,
        {
          details: {
            field: `sources[${index}].content`,
            target: source.target,
            limit: SOURCE_LIMITS.maxSourceBytes,
          },
        },
      );
    }
    total += bytes;
    return placeOne(source, index);
  });
  if (total > SOURCE_LIMITS.maxTotalBytes) {
    throw new UserError(
      'invalid_sources',
      `sources: ${total} bytes in all, over the limit of ${SOURCE_LIMITS.maxTotalBytes} bytes`,
      {
        details: { field: 'sources', limit: SOURCE_LIMITS.maxTotalBytes },
      },
    );
  }
  const seen = new Map<string, number>();
  placed.forEach((source, index) => {
    const earlier = seen.get(source.absolutePath);
    if (earlier !== undefined) {
      refuse(
        index,
        sources[index]!.target,
        `duplicates sources[${earlier}].target (both are ${source.absolutePath})`,
      );
    }
    seen.set(source.absolutePath, index);
  });
  const sorted = [...placed.keys()].sort((a, b) =>
    placed[a]!.absolutePath < placed[b]!.absolutePath ? -1 : 1,
  );
  for (let i = 0; i + 1 < sorted.length; i++) {
    const shorter = placed[sorted[i]!]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const longer = placed[sorted[j]!]!;
      if (!longer.absolutePath.startsWith(shorter.absolutePath)) break;
      if (longer.absolutePath[shorter.absolutePath.length] === '/') {
        refuse(
          sorted[i]!,
          sources[sorted[i]!]!.target,
          `is a folder prefix of sources[${sorted[j]}].target ${JSON.stringify(sources[sorted[j]!]!.target)}: a path cannot be both a file and a folder`,
        );
      }
    }
  }
  return placed;
}
