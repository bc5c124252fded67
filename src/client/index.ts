/**
 * The TypeScript client of the hookbox HTTP API. Its request and response types are inferred from
 * the zod schemas the server validates with.
 *
 * ```ts
 * const hookbox = new Hookbox({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.HOOKBOX_API_KEY });
 * const interaction = await hookbox.interactions.create({ agent: 'scripted', input: [...], environment: 'remote' });
 * for await (const event of await hookbox.interactions.create({ ...request, stream: true })) { ... }
 * ```
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import {
  fileChangeSchema,
  folderListingSchema,
  networkAnswerSchema,
} from './environment-answers.js';
import type { z } from 'zod';
import { snapshotMethods } from './snapshot-methods.js';
import { HookboxApiError } from './api-error.js';
import {
  credentialListSchema,
  credentialSchema,
  type Credential,
  type CredentialRequest,
} from './credential-answers.js';
import {
  environmentResourceListSchema,
  environmentResourceSchema,
  interactionEventSchema,
  looseErrorBodySchema,
  interactionSchema,
  type EnvironmentResource,
  type Interaction,
  type InteractionEvent,
  type InteractionRequest,
  type HookOutcomeRecord,
} from '../interactions/schema.js';

export type {
  EnvironmentResource,
  Interaction,
  InteractionEvent,
  InteractionRequest,
  HookOutcomeRecord,
} from '../interactions/schema.js';

export type { Credential, CredentialRequest } from './credential-answers.js';
export { HookboxApiError } from './api-error.js';

/** An environment's network as the API shows it (transform headers never are). */
export type NetworkState = 'disabled' | { allowlist: { domain: string }[] };

/** A folder of an environment's workspace, as `GET …/files/{folder}` gives it. */
export interface FolderListing {
  path: string;
  type: 'directory';
  entries: { name: string; type: 'file' | 'directory' | 'symlink' | 'other'; size: number }[];
}

/** What a files-API change came to. */
export interface FileChange {
  call_id: string;
  path: string;
  files: number;
  bytes: number;
  hooks: HookOutcomeRecord[];
}

function filesPath(
  id: string,
  path: string,
  query: { overwrite?: boolean; format?: 'tar' } = {},
): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const params = new URLSearchParams();
  if (query.overwrite) params.set('overwrite', 'true');
  if (query.format) params.set('format', query.format);
  const search = params.size > 0 ? `?${params.toString()}` : '';
  return `/v1beta/environments/${encodeURIComponent(id)}/files/${encoded}${search}`;
}

export interface HookboxOptions {
  /** e.g. `http://127.0.0.1:8080` */
  baseUrl: string;
  /** Sent as `x-goog-api-key`. */
  apiKey?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

type StreamingRequest = InteractionRequest & { stream: true };
type UnaryRequest = InteractionRequest & { stream?: false };

/**
 * Checks an answer against the schema the server answers with (docs/api.md); a server that answers
 * otherwise (an older or newer hookbox, a proxy's page) is an error naming what differs, not a value
 * of the wrong shape further on.
 */
function validated<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  status: number,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new HookboxApiError(
    status,
    'invalid_response',
    `the server answered ${what} with an unexpected shape${at}: ${issue?.message ?? 'invalid'}`,
    { issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  );
}

/** The events of a server-sent events body (eventsource-parser), each checked against its schema. */
async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  status: number,
): AsyncGenerator<InteractionEvent> {
  // TypeScript's DOM-less lib types the decoder's input as BufferSource, which Uint8Array is.
  const decoder = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>;
  const events = body
    .pipeThrough(decoder)
    .pipeThrough(new EventSourceParserStream({ onError: 'terminate' }));
  for await (const message of events) {
    if (message.data === '') continue;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      throw new HookboxApiError(
        status,
        'invalid_response',
        `the server streamed an event whose data is not JSON: ${message.data.slice(0, 200)}`,
      );
    }
    yield validated(interactionEventSchema, data, 'a stream event', status);
  }
}

/** A client of one hookbox server. */
export class Hookbox {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: typeof fetch;

  readonly interactions = {
    /** Runs an interaction; with `stream: true`, the events as they happen. */
    create: ((request: InteractionRequest) =>
      request.stream === true
        ? this.stream(request as StreamingRequest)
        : this.request(interactionSchema, 'POST', '/v1beta/interactions', request)) as {
      (request: StreamingRequest): Promise<AsyncIterable<InteractionEvent>>;
      (request: UnaryRequest): Promise<Interaction>;
    },
    get: (id: string): Promise<Interaction> =>
      this.request(interactionSchema, 'GET', `/v1beta/interactions/${encodeURIComponent(id)}`),
  };

  /** Stored credentials (docs/credentials.md); no answer ever holds a value. */
  readonly credentials = {
    create: (request: CredentialRequest): Promise<Credential> =>
      this.request(credentialSchema, 'POST', '/v1beta/credentials', request),
    list: async (): Promise<Credential[]> =>
      (await this.request(credentialListSchema, 'GET', '/v1beta/credentials')).credentials,
    get: (id: string): Promise<Credential> =>
      this.request(credentialSchema, 'GET', `/v1beta/credentials/${encodeURIComponent(id)}`),
    delete: async (id: string): Promise<void> => {
      await this.send('DELETE', `/v1beta/credentials/${encodeURIComponent(id)}`);
    },
  };

  readonly environments = {
    /**
     * A new environment (docs/environments.md, "Environments as a resource"): `sources`, `network`,
     * `env`; or `from_environment` alone, a fork of that one.
     */
    create: (body: {
      sources?: unknown[];
      network?: unknown;
      env?: Record<string, unknown>;
      from_environment?: string;
    }): Promise<EnvironmentResource> =>
      this.request(environmentResourceSchema, 'POST', '/v1beta/environments', body),
    /** A page of the live environments (`page_token`: the last page's `next_page_token`). */
    list: (
      page: { page_size?: number; page_token?: string } = {},
    ): Promise<{ environments: EnvironmentResource[]; next_page_token?: string }> => {
      const query = new URLSearchParams(
        Object.entries(page)
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => [key, String(value)]),
      ).toString();
      return this.request(
        environmentResourceListSchema,
        'GET',
        `/v1beta/environments${query ? `?${query}` : ''}`,
      );
    },
    get: (id: string): Promise<EnvironmentResource> =>
      this.request(
        environmentResourceSchema,
        'GET',
        `/v1beta/environments/${encodeURIComponent(id)}`,
      ),
    delete: async (id: string): Promise<void> => {
      await this.send('DELETE', `/v1beta/environments/${encodeURIComponent(id)}`);
    },
    /** Network modes (docs/environments.md, "Network modes"). */
    network: {
      get: (id: string): Promise<{ environment_id: string; network: NetworkState }> =>
        this.request(
          networkAnswerSchema,
          'GET',
          `/v1beta/environments/${encodeURIComponent(id)}/network`,
        ),
      /** New rules for the environment's next call: `"disabled"` or `{allowlist: [...]}`. */
      set: (
        id: string,
        network:
          | 'disabled'
          | {
              allowlist: {
                domain: string;
                transform?: Record<string, string>;
                credential?: string;
              }[];
            },
      ): Promise<{ environment_id: string; network: NetworkState }> =>
        this.request(
          networkAnswerSchema,
          'PATCH',
          `/v1beta/environments/${encodeURIComponent(id)}/network`,
          network,
        ),
    },
    /** The files API (docs/environments.md, "Files"); paths are relative to /workspace. */
    files: {
      /** A file's bytes (a folder is an error here: use `list`). */
      get: async (id: string, path: string): Promise<Uint8Array> => {
        const response = await this.send('GET', filesPath(id, path));
        if ((response.headers.get('content-type') ?? '').startsWith('application/json'))
          throw new HookboxApiError(400, 'invalid_argument', `path: ${path} is a folder; use list`);
        return new Uint8Array(await response.arrayBuffer());
      },
      /** A folder's entries (`""`: /workspace). */
      list: (id: string, path = ''): Promise<FolderListing> =>
        this.request(folderListingSchema, 'GET', filesPath(id, path)),
      /** Writes a file; an existing one is a 409 unless `overwrite`. */
      put: (
        id: string,
        path: string,
        data: Uint8Array | string,
        options: { overwrite?: boolean } = {},
      ): Promise<FileChange> =>
        this.bytesRequest(fileChangeSchema, 'PUT', filesPath(id, path, options), data),
      /** Deletes a file or an empty folder. */
      delete: (id: string, path: string): Promise<FileChange> =>
        this.request(fileChangeSchema, 'DELETE', filesPath(id, path)),
      /** A folder as a tar archive. */
      getArchive: async (id: string, path = ''): Promise<Uint8Array> => {
        const response = await this.send('GET', filesPath(id, path, { format: 'tar' }));
        return new Uint8Array(await response.arrayBuffer());
      },
      /** Unpacks a tar archive (files and folders only) into a folder; all or nothing. */
      putArchive: (
        id: string,
        path: string,
        archive: Uint8Array,
        options: { overwrite?: boolean } = {},
      ): Promise<FileChange> =>
        this.bytesRequest(
          fileChangeSchema,
          'PUT',
          filesPath(id, path, { ...options, format: 'tar' }),
          archive,
        ),
    },
  };

  /**
   * Snapshots and forks (docs/environments.md, "Snapshots and forks"); a new environment from a
   * snapshot: `environment: {type: 'remote', snapshot_id}`.
   */
  readonly snapshots = snapshotMethods(
    (schema, method, path) => this.request(schema, method, path),
    (method, path) => this.send(method, path),
  );

  constructor(options: HookboxOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  private async send(
    method: string,
    path: string,
    body?: unknown,
    bytes?: Uint8Array | string,
  ): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.apiKey) headers['x-goog-api-key'] = this.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (bytes !== undefined) headers['content-type'] = 'application/octet-stream';
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(bytes === undefined ? {} : { body: bytes as BodyInit }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new HookboxApiError(
        0,
        'unavailable',
        `cannot reach ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    if (!response.ok) throw await this.errorOf(response);
    return response;
  }

  private async errorOf(response: Response): Promise<HookboxApiError> {
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON (a proxy's page): described by its status below
    }
    const parsed = looseErrorBodySchema.safeParse(json);
    if (parsed.success) return HookboxApiError.ofEnvelope(response.status, parsed.data);
    return new HookboxApiError(
      response.status,
      'http_error',
      `HTTP ${response.status}: ${text.slice(0, 500) || response.statusText}`,
    );
  }

  private async request<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<z.output<S>> {
    const response = await this.send(method, path, body);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new HookboxApiError(
        response.status,
        'invalid_response',
        `the server answered ${method} ${path} with a body that is not JSON: ${text.slice(0, 200)}`,
      );
    }
    return validated(schema, json, `${method} ${path}`, response.status);
  }

  private async bytesRequest<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    bytes: Uint8Array | string,
  ): Promise<z.output<S>> {
    const response = await this.send(method, path, undefined, bytes);
    return validated(schema, await response.json(), `${method} ${path}`, response.status);
  }

  private async stream(request: StreamingRequest): Promise<AsyncIterable<InteractionEvent>> {
    const response = await this.send('POST', '/v1beta/interactions', request);
    if (!response.body) throw new HookboxApiError(response.status, 'http_error', 'empty stream');
    return sseEvents(response.body, response.status);
  }
}
