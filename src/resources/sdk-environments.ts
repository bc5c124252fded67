/**
 * Environments as the Gemini SDKs see them (docs/environments.md, "Environments as a resource"):
 * `POST|GET /v1beta/environments`, `GET|DELETE /v1beta/environments/{id}`, in the SDKs' shape
 * (`id`, `status`, `created`, `sources`, `network`, `size_bytes`, `file_count`) with hookbox's own
 * fields beside them.
 */
import { placeSources, type InlineSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import { parseToolEnv } from '../controller/tool-env.js';
import type { InteractionService } from '../interactions/service.js';
import type { EnvironmentInfo } from '../interactions/schema.js';
import { parseNetworkOptions, type NetworkOptions } from '../network/allowlist.js';
import type { Caller } from '../tenants/tenant.js';
import { parseCreateEnvironment } from './environment-request.js';
import { checkRepositories, cloneRepositories } from './repository-sources.js';
import { pageOf, pageOfItems } from './paging.js';
import { walkWorkspace } from './workspace-tree.js';

/** A source as an environment's answer shows it: never its content (which may be megabytes). */
export interface SourceView {
  type: 'inline' | 'repository';
  target: string;
  encoding?: string;
  source?: string;
}

/** The SDKs' Environment, with hookbox's fields (the rest of `GET …/environments/{id}`) beside it. */
export type EnvironmentResource = EnvironmentInfo & {
  id: string;
  /** `active` while its container runs (whether or not a call runs in it: see `busy`), else `lost`. */
  status: 'active' | 'lost';
  /** Whether an interaction runs in it now (hookbox's `active`, before the SDKs' meaning). */
  busy: boolean;
  updated: string;
  last_accessed: string;
  sources: SourceView[];
  network: 'disabled' | { allowlist: { domain: string }[] };
  size_bytes?: string;
  file_count?: string;
};

/**
 * Runs `check` over the inline sources alone; an error it names `sources[i]…` with is renamed to
 * that source's place in the request's whole list (repositories were taken out of it).
 */
function inRequestOrder<T>(check: () => T, indices: number[]): T {
  try {
    return check();
  } catch (error) {
    const at = error instanceof UserError ? /^sources\[(\d+)\]/.exec(error.message) : null;
    const index = at ? indices[Number(at[1])] : undefined;
    if (!(error instanceof UserError) || index === undefined || index === Number(at![1]))
      throw error;
    const rename = (text: string) => text.replace(/^sources\[\d+\]/, `sources[${index}]`);
    const field = error.details?.field;
    throw new UserError(error.code, rename(error.message), {
      details: { ...error.details, ...(typeof field === 'string' ? { field: rename(field) } : {}) },
    });
  }
}

/** The SDK resource over the service's environments. */
export class SdkEnvironments {
  /** The sources each environment was made with (this server's; another replica's show none). */
  private readonly madeWith = new Map<string, SourceView[]>();

  constructor(private readonly service: InteractionService) {}

  /** `POST /v1beta/environments`: every check made before anything is made. */
  async create(body: unknown, caller?: Caller): Promise<EnvironmentResource> {
    const request = parseCreateEnvironment(body);
    if (request.fromEnvironment !== undefined) {
      const forked = await this.service.snapshots.fork(request.fromEnvironment, '1', caller);
      const id = forked.environments[0]!.environment_id;
      this.madeWith.set(id, this.madeWith.get(request.fromEnvironment) ?? []);
      return this.get(id, caller);
    }
    const placed = inRequestOrder(() => placeSources(request.sources), request.inlineIndices);
    const env = request.env === undefined ? undefined : parseToolEnv(request.env, 'env');
    // Checked here so a bad network is refused before anything is made; undefined: no network.
    const allowlist =
      request.network === undefined ? undefined : parseNetworkOptions(request.network, 'network');
    const network =
      allowlist !== undefined && allowlist.entries.length > 0
        ? (request.network as NetworkOptions)
        : undefined;
    // Checked before anything is made: a repository's host must be allowlisted.
    const repositories = checkRepositories(
      request.repositories,
      placed.map((source) => source.absolutePath.slice(1)),
      allowlist,
    );
    const environment = await this.service.environments.createFor(caller, {
      sources: request.sources as InlineSource[],
      ...(network ? { network } : {}),
      ...(env ? { env } : {}),
    });
    try {
      await cloneRepositories(environment, repositories);
    } catch (error) {
      // Nothing half-made is left behind: the environment goes, and the error says why.
      await this.service.deleteEnvironment(environment.id, caller).catch(() => {});
      throw error;
    }
    this.service.leases.track(environment.id);
    this.madeWith.set(environment.id, [
      ...placed.map((source) => ({
        type: 'inline' as const,
        target: source.absolutePath.slice(1),
        ...(source.encoding === 'base64' ? { encoding: 'base64' } : {}),
      })),
      ...repositories.map((repository) => ({
        type: 'repository' as const,
        target: repository.target,
        source: repository.url,
      })),
    ]);
    return this.get(environment.id, caller);
  }

  /** `GET /v1beta/environments/{id}`: its real state, its size and file count. */
  async get(id: string, caller?: Caller): Promise<EnvironmentResource> {
    await this.service.adoptEnvironment(id);
    const info = await this.service.environmentInfo(id, caller);
    const environment = this.service.environmentAt(id, 'id', caller);
    let counts: { size_bytes?: string; file_count?: string } = {};
    if (info.status !== 'lost') {
      const tree = await walkWorkspace(environment.files, '', true).catch(() => undefined);
      if (tree && !tree.truncated) {
        const files = tree.entries.filter((entry) => entry.type === 'file');
        counts = {
          size_bytes: String(files.reduce((sum, entry) => sum + entry.size, 0)),
          file_count: String(files.length),
        };
      }
    }
    return { ...this.resourceOf(info, environment.network), ...counts };
  }

  private resourceOf(
    info: EnvironmentInfo,
    network: EnvironmentResource['network'],
  ): EnvironmentResource {
    return {
      id: info.environment_id,
      ...info,
      status: info.status === 'lost' ? 'lost' : 'active',
      busy: info.status === 'active',
      updated: info.last_active,
      last_accessed: info.last_active,
      sources: this.madeWith.get(info.environment_id) ?? [],
      // Test stand-ins of an environment may have no network state.
      network: network ?? 'disabled',
    };
  }

  /** `GET /v1beta/environments?page_size=&page_token=`: the caller's, by id. */
  async list(
    query: Record<string, unknown>,
    caller?: Caller,
  ): Promise<{ environments: EnvironmentResource[]; next_page_token?: string }> {
    const page = pageOf(query);
    const listed = await this.service.listEnvironments(caller);
    const chosen = pageOfItems(listed, (item) => item.environment_id, page);
    const environments = await Promise.all(
      chosen.items.map(async (item) => {
        const info = await this.service.environmentInfo(item.environment_id, caller);
        const environment = this.service.environmentAt(item.environment_id, 'id', caller);
        return this.resourceOf(info, environment.network);
      }),
    );
    return {
      environments,
      ...(chosen.nextPageToken ? { next_page_token: chosen.nextPageToken } : {}),
    };
  }

  /** `DELETE /v1beta/environments/{id}`. */
  async delete(id: string, caller?: Caller): Promise<void> {
    await this.service.deleteEnvironment(id, caller);
    this.madeWith.delete(id);
  }
}
