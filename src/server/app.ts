import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { httpStatusOf, SystemError, UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import type { Logger } from '../record/logger.js';
import { KeyTable, tenantOfPlainKey, type TenantKey } from '../tenants/keys.js';
import { quotaExceeded } from '../tenants/quotas.js';
import { LOCAL_CALLER, type Caller } from '../tenants/tenant.js';
import { TokenBucketStore } from '../tenants/token-bucket-store.js';
import { AllowedHosts } from './allowed-hosts.js';
import { checkApiRevision } from './api-revision.js';
import { CLIENT_LIMIT_DEFAULTS, type ClientLimits } from './client-limits.js';
import { errorBody, requestErrorOf } from './errors.js';
import { isPublicConsolePath, registerConsole } from './console/routes.js';
import { HookboxMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { registerEnvironmentRoutes } from './routes-environments.js';
import { registerCredentialsRoutes } from './routes-credentials.js';
import { registerAgentsRoutes } from './routes-agents.js';
import { registerFilesRoutes } from './routes-files.js';
import { registerInteractionRoutes } from './routes-interactions.js';
import { registerMcpRoutes } from './routes-mcp.js';
import { registerSnapshotRoutes } from './routes-snapshots.js';
import { canonicalUrl, checkPathSegments, routedPath } from './request-path.js';

/** What a `/v1beta/{kind}s/{id}` path names, for the router's refusal of an overlong id. */
const ID_KINDS = ['environment', 'credential', 'snapshot'] as const;

/** Request bodies over 32 MiB are refused (413): room for the 20 MiB of sources, JSON-escaped. */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** Paths anyone may read: no code runs behind them. */
const PUBLIC_PATHS = new Set(['/healthz', '/openapi.json']);

/** Requests per second one address may make to the public paths (no key, no tenant). */
const PUBLIC_REQUESTS_PER_SECOND = 20;

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts for (set once its key is checked; undefined on public paths). */
    caller?: Caller;
  }
}

export interface AppOptions {
  service: InteractionService;
  logger: Logger;
  /** Plain keys, each its own tenant. No keys at all: the API is open (loopback only). */
  apiKeys: readonly string[];
  /** Keys with names, roles and quotas (docs/tenants.md); added to `apiKeys`. @default [] */
  tenantKeys?: readonly TenantKey[];
  /**
   * Host names the server answers besides loopback ones (DNS-rebinding defence). With no key only
   * loopback names (and these) are answered; with keys, when given, only these.
   * @default []
   */
  allowedHosts?: readonly string[];
  /** @default 32 MiB */
  bodyLimit?: number;
  /** Timeouts of slow clients (docs/tenants.md, "Client limits"). */
  limits?: Pick<ClientLimits, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;
  /** A streaming client may leave this much unread before its stream is dropped. @default 8 MiB */
  streamBufferBytes?: number;
  version: string;
  /** The Prometheus metrics `GET /metrics` answers with. @default new ones for this service */
  metrics?: HookboxMetrics;
}

/** The keys of a server: plain keys first (each its own tenant), then the structured ones. */
export function keyTableOf(apiKeys: readonly string[], tenantKeys: readonly TenantKey[] = []) {
  const plain = apiKeys.map(tenantOfPlainKey);
  return new KeyTable([...plain, ...tenantKeys]);
}

/** The Fastify app of `hookbox serve` (docs/contract.md §9); `listen` is the caller's. */
export function buildApp(options: AppOptions): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const { service } = options;
  const keys = keyTableOf(options.apiKeys, options.tenantKeys);
  const hosts = new AllowedHosts(options.allowedHosts ?? [], keys.open);
  const limits = { ...CLIENT_LIMIT_DEFAULTS, ...options.limits };
  const app = Fastify({
    // The cast picks Fastify's logger type for the instance (buildApp's FastifyInstance), not pino's.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit,
    forceCloseConnections: 'idle',
    // Requests that arrive while the server closes are refused by our own hook below, so the 503
    // is in the API's error envelope like every other answer (docs/contract.md §9).
    return503OnClosing: false,
    // One canonical path (unreserved escapes decoded, `/v1` as `/v1beta`), made before routing: the
    // router matches it and every check below reads it (src/server/request-path.ts).
    rewriteUrl: (request) => canonicalUrl(request.url ?? '/'),
    // The router's own refusals (a path segment over 100 characters, a malformed URL) are
    // answered in hookbox's error shape too, like every other 4xx.
    frameworkErrors: (error, request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const kind = ID_KINDS.find((noun) => path.includes(`/${noun}s/`)) ?? ('interaction' as const);
      const failure =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new UserError('not_found', `id: no such ${kind} (ids are at most 100 characters)`, {
              details: { field: 'id' },
            })
          : new UserError('invalid_argument', `path: not a valid URL path (${error.message})`, {
              details: { field: 'path' },
            });
      void (reply as FastifyReply).status(httpStatusOf(failure)).send(errorBody(failure));
    },
    // Slow clients (docs/tenants.md, "Client limits"): headers, then the whole request, in bounded
    // time; Node checks these every second rather than its default 30.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
  });

  // JSON only: a text/plain body would otherwise reach the handlers as a string.
  app.removeContentTypeParser('text/plain');

  const metrics = options.metrics ?? new HookboxMetrics(service.controller, () => service.inFlight);
  if (!options.metrics) app.addHook('onClose', async () => metrics.close());

  // Before any body is read: the Host check, then the key. A refused request's body is never read.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request) => {
    if (closing)
      throw new SystemError('engine_unavailable', 'hookbox is shutting down; try again', {
        retryable: true,
      });
    hosts.check(request.headers.host);
    // Every decision below is made on the path the router matched, never on the raw URL.
    const path = routedPath(request.url);
    checkPathSegments(path);
    // Real clients send `Content-Type: application/json` on every request; a GET or DELETE with no
    // body has nothing to parse, so the header is dropped rather than refused as an empty body.
    // So is a POST that takes no body: a snapshot, a fork (docs/environments.md).
    // So is the start of a resumable upload (docs/environments.md, "Files through the SDKs").
    const bodiless =
      request.method === 'POST' &&
      (/\/(snapshots|fork|cancel)$/.test(path) || path.startsWith('/upload/'));
    if (
      (request.method === 'GET' ||
        request.method === 'DELETE' ||
        request.method === 'HEAD' ||
        bodiless) &&
      request.headers['transfer-encoding'] === undefined &&
      (request.headers['content-length'] === undefined || request.headers['content-length'] === '0')
    )
      delete request.headers['content-type'];
    if (PUBLIC_PATHS.has(path) || isPublicConsolePath(path)) return;
    const caller = keys.open ? LOCAL_CALLER : keys.identify(request.headers);
    if (!caller)
      throw new UserError('unauthenticated', 'x-goog-api-key: an API key is required', {
        details: { field: 'x-goog-api-key' },
      });
    request.caller = caller;
    checkApiRevision(request.headers['api-revision']);
    // The console and the metrics show every tenant's activity: operators only (docs/console.md).
    if ((path === '/metrics' || path.startsWith('/console/')) && caller.role !== 'admin')
      throw new UserError(
        'permission_denied',
        `${path === '/metrics' ? '/metrics' : 'the console'} needs an admin key, and this key's tenant ${caller.tenant} has role tenant; start hookbox serve with HOOKBOX_ADMIN_KEYS=<key>, or give the key role: admin in --api-keys-file (docs/tenants.md, "Keys and roles")`,
        { details: { field: 'x-goog-api-key' } },
      );
  });

  // The route's pattern, never the path: ids in paths would make a series per environment.
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime,
    );
  });

  void app.register(rateLimit, {
    global: true,
    timeWindow: 1000,
    // A token bucket (docs/tenants.md, "Quotas"): the plugin's own store counts fixed windows.
    store: TokenBucketStore,
    keyGenerator: (request) =>
      request.caller ? `tenant:${request.caller.tenant}` : `address:${request.ip}`,
    max: (request) =>
      request.caller ? request.caller.quotas.requestsPerSecond : PUBLIC_REQUESTS_PER_SECOND,
    // A server with no key has one user, on this machine.
    allowList: () => keys.open,
    errorResponseBuilder: (request, context) =>
      quotaExceeded(
        'requests_per_second',
        `${request.caller ? `tenant ${request.caller.tenant}` : `address ${request.ip}`} is past its ${context.max} requests per second`,
        context.ttl / 1000,
      ),
  });

  app.setErrorHandler((error, request, reply) => {
    const failure = requestErrorOf(error, bodyLimit);
    const status = httpStatusOf(failure);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else
      request.log.info(
        {
          code: failure.code,
          field: failure.details.field,
          status,
          tenant: request.caller?.tenant,
        },
        'request refused',
      );
    const retryAfter = failure.details.retry_after_s;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    if (failure.code === 'unauthenticated' || failure.code === 'permission_denied') {
      // Answered without reading the body; the connection is closed, so a client trickling a body
      // cannot hold it (docs/tenants.md, "Client limits").
      void reply.header('connection', 'close');
      reply.raw.once('finish', () => request.raw.socket?.destroy());
    }
    void reply.status(status).send(errorBody(failure));
  });

  app.setNotFoundHandler((request, reply) => {
    const failure = new UserError(
      'not_found',
      `path: no route ${request.method} ${request.url.split('?')[0]}`,
      { details: { field: 'path' } },
    );
    void reply.status(404).send(errorBody(failure));
  });

  // The routes come after the rate limiter, whose hooks attach to routes declared after it.
  void app.register(async (api) => {
    api.get('/healthz', async () => ({
      status: 'ok',
      version: options.version,
      environments: service.controller.listEnvironments().length,
      interactions_in_flight: service.inFlight,
    }));

    const document = openApiDocument({ version: options.version, bodyLimit });
    api.get('/openapi.json', async () => document);

    api.get('/metrics', async (_request, reply) => {
      const { contentType, body } = await metrics.text();
      return reply.header('content-type', contentType).send(body);
    });

    registerConsole(api, service);

    registerInteractionRoutes(api, service, options.streamBufferBytes);

    registerEnvironmentRoutes(api, service);
    registerFilesRoutes(api, service);
    registerSnapshotRoutes(api, service);
    registerCredentialsRoutes(api, service);
    registerAgentsRoutes(api, service);
    registerMcpRoutes(api, service, options.version);

    // Network modes (docs/environments.md): the body is what `environment.network` takes.
    api.get<{ Params: { id: string } }>('/v1beta/environments/:id/network', async (request) =>
      service.networkOf(request.params.id, request.caller),
    );
    api.patch<{ Params: { id: string } }>('/v1beta/environments/:id/network', async (request) =>
      service.replaceNetwork(request.params.id, request.body, request.caller),
    );
  });

  return app;
}
