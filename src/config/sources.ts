import { z } from 'zod';
import { UserError } from '../errors/index.js';
import { hasLoneSurrogate } from '../tools/argument-text.js';
import { SOURCE_LIMITS } from './limits.js';

/** A file sent with the request, to be placed in the environment (docs/contract.md §3). */
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
  /** The file's content: its text, or with `encoding: 'base64'` its bytes in base64. */
  content: string;
  /**
   * How `content` holds the file: `'utf-8'` (text, written as UTF-8) or `'base64'` (any bytes,
   * written exactly; for binary files). @default 'utf-8'
   */
  encoding?: SourceEncoding;
}

/** How a source's `content` holds its bytes. */
export type SourceEncoding = 'utf-8' | 'base64';

/** Where a source lands: the `/.agents` volume or the `/workspace` volume. */
export type SourceArea = 'agents' | 'workspace';

/** A validated source: its area, its path inside that area, and whether it is made executable. */
export interface PlacedSource {
  area: SourceArea;
  /** Path inside the area, without a leading slash, e.g. `hooks-scripts/gate.py`. */
  path: string;
  /** The absolute path inside the sandbox, e.g. `/.agents/hooks-scripts/gate.py`. */
  absolutePath: string;
  /** The content as sent: text, or base64 when `encoding` is `'base64'`. */
  content: string;
  encoding: SourceEncoding;
  /** A source whose content starts with `#!` is made executable. */
  executable: boolean;
}

const inlineSourceSchema = z.strictObject({
  type: z.literal('inline'),
  target: z.string(),
  content: z.string(),
  encoding: z.enum(['utf-8', 'base64']).optional(),
});

/** Canonical base64 (RFC 4648 §4, padded): anything else would be decoded with bytes dropped. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function refuseContent(index: number, target: string, rule: string): never {
  throw new UserError(
    'invalid_sources',
    `sources[${index}].content (target ${JSON.stringify(target)}): ${rule}`,
    { details: { field: `sources[${index}].content`, target, rule } },
  );
}

/**
 * The number of bytes a source's file will hold, after checking that its content can be written
 * exactly: base64 must be canonical, text must have a UTF-8 form (no lone surrogate). Bytes are
 * never altered silently (README "Limits").
 */
function contentBytes(source: InlineSource, index: number): number {
  if (source.encoding === 'base64') {
    if (!BASE64.test(source.content))
      refuseContent(
        index,
        source.target,
        'is not valid base64 (RFC 4648, with padding, no spaces)',
      );
    const padding = source.content.endsWith('==') ? 2 : source.content.endsWith('=') ? 1 : 0;
    return (source.content.length / 4) * 3 - padding;
  }
  if (hasLoneSurrogate(source.content))
    refuseContent(
      index,
      source.target,
      'holds a lone UTF-16 surrogate, which has no UTF-8 form; send binary files with "encoding": "base64"',
    );
  return Buffer.byteLength(source.content);
}

/** A source's bytes (decoded from base64, or its text as UTF-8). */
export function sourceBytes(source: Pick<PlacedSource, 'content' | 'encoding'>): Buffer {
  return Buffer.from(source.content, source.encoding === 'base64' ? 'base64' : 'utf8');
}

/**
 * A source's text, for files hookbox itself reads (hooks.json): a base64 source must decode to
 * UTF-8, else it is refused naming `field`.
 */
export function sourceText(source: PlacedSource, field: string): string {
  if (source.encoding !== 'base64') return source.content;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(sourceBytes(source));
  } catch {
    throw new UserError('invalid_sources', `${field} (${source.absolutePath}): is not UTF-8 text`, {
      details: { field },
    });
  }
}

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
  if (hasLoneSurrogate(target)) refuse(index, target, 'must not hold a lone UTF-16 surrogate');
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
    encoding: source.encoding ?? 'utf-8',
    executable:
      source.encoding === 'base64'
        ? Buffer.from(source.content.slice(0, 4), 'base64').subarray(0, 2).toString('latin1') ===
          '#!'
        : source.content.startsWith('#!'),
  };
}

/**
 * Validates sources against docs/contract.md §3 and the documented limits, before any container is made.
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
    const bytes = contentBytes(source, index);
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
