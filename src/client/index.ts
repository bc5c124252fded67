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
import type {
  EnvironmentInfo,
  ErrorBody,
  HookOutcomeRecord,
  Interaction,
  InteractionEvent,
  InteractionRequest,
} from '../interactions/schema.js';

export type {
  EnvironmentInfo,
  Interaction,
  InteractionEvent,
  InteractionRequest,
  Step,
  HookOutcomeRecord,
} from '../interactions/schema.js';

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

/** An error answer of the API (4xx/5xx), or a server that could not be reached (`status` 0). */
export class HookboxApiError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The hookbox error code (`invalid_argument`, `not_found`, `unauthenticated`, …). */
  readonly code: string;
  /** `field`: the JSON path or header at fault, when there is one. */
  readonly details: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HookboxApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** A bad request (4xx): the caller's mistake. */
  get isClientError(): boolean {
    return this.status >= 400 && this.status < 500;
  }
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

/** Parses a server-sent events body into its JSON data, event by event. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<InteractionEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = frame
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data !== '') yield JSON.parse(data) as InteractionEvent;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
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
        : this.request<Interaction>('POST', '/v1beta/interactions', request)) as {
      (request: StreamingRequest): Promise<AsyncIterable<InteractionEvent>>;
      (request: UnaryRequest): Promise<Interaction>;
    },
    get: (id: string): Promise<Interaction> =>
      this.request<Interaction>('GET', `/v1beta/interactions/${encodeURIComponent(id)}`),
  };

  readonly environments = {
    list: (): Promise<{ environments: { environment_id: string; type: 'remote' }[] }> =>
      this.request('GET', '/v1beta/environments'),
    get: (id: string): Promise<EnvironmentInfo> =>
      this.request<EnvironmentInfo>('GET', `/v1beta/environments/${encodeURIComponent(id)}`),
    delete: async (id: string): Promise<void> => {
      await this.request('DELETE', `/v1beta/environments/${encodeURIComponent(id)}`);
    },
    /** Network modes (docs/environments.md, "Network modes"). */
    network: {
      get: (id: string): Promise<{ environment_id: string; network: NetworkState }> =>
        this.request('GET', `/v1beta/environments/${encodeURIComponent(id)}/network`),
      /** New rules for the environment's next call: `"disabled"` or `{allowlist: [...]}`. */
      set: (
        id: string,
        network:
          'disabled' | { allowlist: { domain: string; transform?: Record<string, string> }[] },
      ): Promise<{ environment_id: string; network: NetworkState }> =>
        this.request('PATCH', `/v1beta/environments/${encodeURIComponent(id)}/network`, network),
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
        this.request<FolderListing>('GET', filesPath(id, path)),
      /** Writes a file; an existing one is a 409 unless `overwrite`. */
      put: (
        id: string,
        path: string,
        data: Uint8Array | string,
        options: { overwrite?: boolean } = {},
      ): Promise<FileChange> =>
        this.bytesRequest<FileChange>('PUT', filesPath(id, path, options), data),
      /** Deletes a file or an empty folder. */
      delete: (id: string, path: string): Promise<FileChange> =>
        this.request<FileChange>('DELETE', filesPath(id, path)),
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
        this.bytesRequest<FileChange>(
          'PUT',
          filesPath(id, path, { ...options, format: 'tar' }),
          archive,
        ),
    },
  };

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
    try {
      const body = JSON.parse(text) as ErrorBody;
      if (body?.error?.message !== undefined) {
        return new HookboxApiError(
          response.status,
          String(body.error.code),
          body.error.message,
          body.error.details ?? {},
        );
      }
    } catch {
      // not our JSON: fall through
    }
    return new HookboxApiError(
      response.status,
      'http_error',
      `HTTP ${response.status}: ${text.slice(0, 500) || response.statusText}`,
    );
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.send(method, path, body);
    return (await response.json()) as T;
  }

  private async bytesRequest<T>(
    method: string,
    path: string,
    bytes: Uint8Array | string,
  ): Promise<T> {
    const response = await this.send(method, path, undefined, bytes);
    return (await response.json()) as T;
  }

  private async stream(request: StreamingRequest): Promise<AsyncIterable<InteractionEvent>> {
    const response = await this.send('POST', '/v1beta/interactions', request);
    if (!response.body) throw new HookboxApiError(response.status, 'http_error', 'empty stream');
    return sseEvents(response.body);
  }
}
