/**
 * The body of `POST /v1beta/environments` as the Gemini SDKs send it (docs/environments.md,
 * "Environments as a resource"): `sources`, `network`, `env`, or `from_environment` alone.
 */
import { z } from 'zod';
import { describeIssues, knownKeysOf } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';

/** Source types the SDKs name that hookbox cannot serve offline: each a 400 naming the type. */
const UNSERVED_SOURCE_TYPES: Record<string, string> = {
  gcs: 'Cloud Storage is not reachable from hookbox; upload the files (environments.files.upload) or send them inline',
  skill_registry:
    "Google's skill registry is not reachable from hookbox; send the skill's files inline",
};

const createSchema = z.strictObject({
  sources: z.array(z.unknown(), { error: 'must be a list of sources' }).optional(),
  network: z.unknown().optional(),
  env: z.unknown().optional(),
  from_environment: z
    .string({ error: 'must be an environment id ("env_…" or "environments/env_…")' })
    .optional(),
});

export interface CreateEnvironmentRequest {
  /** Inline sources, in hookbox's own shape (config/sources.ts). */
  sources: unknown[];
  /** Repository sources (a git URL cloned at creation; docs/environments.md). */
  repositories: { index: number; url: string; target?: string }[];
  /** Where each of `sources` stood in the request's list (repositories are taken out of it). */
  inlineIndices: number[];
  network?: unknown;
  env?: unknown;
  /** The id of the environment to fork, without `environments/`. */
  fromEnvironment?: string;
}

function refuse(field: string, rule: string): never {
  throw new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
}

/** `{X: {value: "v"}}` (the SDKs' EnvVar) as `{X: "v"}`; everything else as given, checked later. */
function envOf(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  return Object.fromEntries(
    Object.entries(raw).map(([name, value]) => {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        const keys = Object.keys(value as object);
        const plain = (value as { value?: unknown }).value;
        if (keys.length === 1 && keys[0] === 'value' && typeof plain === 'string')
          return [name, plain];
      }
      return [name, value];
    }),
  );
}

/** The SDK's repository source: `{type: "repository", source: "<git URL>", target}`. */
function repositoryOf(raw: Record<string, unknown>, index: number) {
  const field = `sources[${index}]`;
  const extra = Object.keys(raw).filter((key) => !['type', 'source', 'target'].includes(key));
  if (extra.length > 0)
    refuse(`${field}.${extra[0]}`, 'a repository source takes "source" and "target" only');
  const url = raw.source;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url))
    refuse(`${field}.source`, 'must be a git URL (http:// or https://)');
  const target = raw.target;
  if (target !== undefined && typeof target !== 'string')
    refuse(`${field}.target`, 'must be a folder under "workspace/"');
  return { index, url, ...(target !== undefined ? { target } : {}) };
}

/** Checks the SDK's create body; a UserError names the first field at fault. */
export function parseCreateEnvironment(body: unknown): CreateEnvironmentRequest {
  const parsed = createSchema.safeParse(body ?? {});
  if (!parsed.success) {
    const problem = describeIssues(parsed.error.issues, knownKeysOf(createSchema))[0]!;
    refuse(problem.path, problem.message);
  }
  const request = parsed.data;
  const sources: unknown[] = [];
  const repositories: CreateEnvironmentRequest['repositories'] = [];
  const inlineIndices: number[] = [];
  (request.sources ?? []).forEach((raw, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      refuse(`sources[${index}]`, 'must be an object');
    const source = raw as Record<string, unknown>;
    const type = typeof source.type === 'string' ? source.type.toLowerCase() : source.type;
    if (typeof type === 'string' && type in UNSERVED_SOURCE_TYPES)
      refuse(
        `sources[${index}].type`,
        `type "${type}" is not supported: ${UNSERVED_SOURCE_TYPES[type]}`,
      );
    if (type === 'repository') repositories.push(repositoryOf(source, index));
    else if (type === 'inline' || type === undefined) {
      // `source` is the SDK's field for non-inline types only.
      if (source.source !== undefined)
        refuse(`sources[${index}].source`, 'an inline source takes "content", not "source"');
      sources.push({ ...source, type: 'inline' });
      inlineIndices.push(index);
    } else
      refuse(
        `sources[${index}].type`,
        `unknown source type ${JSON.stringify(source.type)} (known: inline, repository)`,
      );
  });
  const from = request.from_environment?.replace(/^environments\//, '');
  if (from !== undefined) {
    for (const key of ['sources', 'env', 'network'] as const)
      if (request[key] !== undefined)
        refuse(
          key,
          'must be empty with from_environment (a fork takes its files, variables and network from its parent)',
        );
  }
  return {
    sources,
    repositories,
    inlineIndices,
    ...(request.network !== undefined ? { network: request.network } : {}),
    ...(request.env !== undefined ? { env: envOf(request.env) } : {}),
    ...(from !== undefined ? { fromEnvironment: from } : {}),
  };
}
