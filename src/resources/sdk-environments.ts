/**
 * Environments as the Gemini SDKs see them (docs/environments.md, "Environments as a resource"):
 * `POST|GET /v1beta/environments`, `GET|DELETE /v1beta/environments/{id}`, in the SDKs' shape
 * (`id`, `status`, `created`, `sources`, `network`, `size_bytes`, `file_count`) with hookbox's own
 * fields beside them.
 */
import { placeSources, type InlineSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import { parseToolEnv } from '../environments/tool-env.js';
import type { InteractionService } from '../interactions/service.js';
import type { EnvironmentInfo } from '../interactions/schema.js';
import { parseNetworkOptions, type NetworkOptions } from '../network/allowlist.js';
import type { Caller } from '../tenants/tenant.js';
import { parseCreateEnvironment } from './environment-request.js';
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
    const placed = placeSources(request.sources);
    const env = request.env === undefined ? undefined : parseToolEnv(request.env, 'env');
    // Checked here so a bad network is refused before anything is made; undefined: no network.
    const allowlist =
      request.network === undefined ? undefined : parseNetworkOptions(request.network, 'network');
    const network =
      allowlist !== undefined && allowlist.entries.length > 0
        ? (request.network as NetworkOptions)
        : undefined;
    if (request.repositories.length > 0) {
      const first = request.repositories[0]!;
      throw new UserError(
        'invalid_argument',
        `sources[${first.index}].type: type "repository" needs a network allowing its host`,
        { details: { field: `sources[${first.index}].type` } },
      );
    }
    const environment = await this.service.environments.createFor(caller, {
      sources: request.sources as InlineSource[],
      ...(network ? { network } : {}),
      ...(env ? { env } : {}),
    });
    this.service.leases.track(environment.id);
    this.madeWith.set(
      environment.id,
      placed.map((source) => ({
        type: 'inline' as const,
        target: source.absolutePath.slice(1),
        ...(source.encoding === 'base64' ? { encoding: 'base64' } : {}),
      })),
    );
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
