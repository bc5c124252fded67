/**
 * How `/{version}/mcp` makes a session's environment (docs/mcp.md, "Streamable HTTP"): query
 * parameters `agent`, `vocabulary`, `template`, `snapshot_id`, and the header `x-hookbox-sources`
 * (the sources as base64 of their JSON array). Checked before anything is made.
 */
import { z } from 'zod';
import { placeSources, type InlineSource } from '../config/sources.js';
import { hooksConfigOf } from '../hooks/hooks-config-of.js';
import { UserError } from '../errors/index.js';
import { isVocabularyId, VOCABULARIES, type VocabularyId } from '../tools/registry.js';
import { vocabularyForAgent } from '../tools/vocabulary-for-agent.js';

/** The header that carries a new session's sources. */
export const SOURCES_HEADER = 'x-hookbox-sources';

const querySchema = z.strictObject({
  agent: z.string().min(1, { error: 'must not be empty' }).optional(),
  vocabulary: z
    .string()
    .refine(isVocabularyId, {
      error: `must be one of ${Object.keys(VOCABULARIES).join(', ')}`,
    })
    .optional(),
  template: z.string().min(1, { error: 'must not be empty' }).optional(),
  snapshot_id: z.string().min(1, { error: 'must not be empty' }).optional(),
});

/** What a new session's environment is made from. */
export interface SessionRecipe {
  vocabulary: VocabularyId;
  sources: InlineSource[];
  template?: string;
  snapshotId?: string;
}

function refuse(field: string, rule: string): never {
  throw new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
}

/** The sources of the header: base64 (standard or URL-safe) of a JSON array of inline sources. */
function sourcesOf(header: string | string[] | undefined): InlineSource[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join('') : header;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text.trim(), 'base64').toString('utf8'));
  } catch {
    refuse(
      SOURCES_HEADER,
      'must be base64 of a JSON array of sources ({"type": "inline", "target", "content"})',
    );
  }
  // Same rules as an interaction's sources (docs/contract.md §3), field names included.
  placeSources(parsed);
  return parsed as InlineSource[];
}

/** The recipe of a new session, from its URL query and headers. */
export function sessionRecipeOf(
  query: unknown,
  headers: Record<string, string | string[] | undefined>,
): SessionRecipe {
  const parsed = querySchema.safeParse(query ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys')
      refuse(
        'query',
        `unknown parameter ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (known: ${Object.keys(querySchema.shape).join(', ')})`,
      );
    refuse(String(issue.path[0] ?? 'query'), issue.message);
  }
  const { agent, vocabulary, template, snapshot_id: snapshotId } = parsed.data;
  const sources = sourcesOf(headers[SOURCES_HEADER]);
  if (snapshotId !== undefined && (sources.length > 0 || template || vocabulary || agent))
    refuse(
      'snapshot_id',
      'a snapshot brings its own sources, template and vocabulary: give nothing else with it',
    );
  hooksConfigOf(placeSources(sources));
  return {
    vocabulary: vocabulary ?? vocabularyForAgent(agent),
    sources,
    ...(template === undefined ? {} : { template }),
    ...(snapshotId === undefined ? {} : { snapshotId }),
  };
}
