import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { httpStatusOf, toHookboxError, UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import type { InteractionEvent } from '../interactions/schema.js';
import type { Logger } from '../record/logger.js';
import { ApiKeyChecker } from './auth.js';
import { isPublicConsolePath, registerConsole } from './console/routes.js';
import { errorBody, requestErrorOf } from './errors.js';
import { HookboxMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { registerFilesRoutes } from './routes-files.js';

/** Request bodies over 32 MiB are refused (413): room for the 20 MiB of sources, JSON-escaped. */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** Paths anyone may read: no code runs behind them. */
const PUBLIC_PATHS = new Set(['/healthz', '/openapi.json']);

export interface AppOptions {
  service: InteractionService;
  logger: Logger;
  /** No keys: the API is open (only allowed on loopback; see `checkListenSafety`). */
  apiKeys: readonly string[];
  /** @default 32 MiB */
  bodyLimit?: number;
  version: string;
  /** The Prometheus metrics `GET /metrics` answers with. @default new ones for this service */
  metrics?: HookboxMetrics;
}

function sseFrame(event: InteractionEvent): string {
  return `event: ${event.event_type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The Fastify app of `hookbox serve` (SPEC §9); `listen` is the caller's. */
export function buildApp(options: AppOptions): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const { service } = options;
  const keys = new ApiKeyChecker(options.apiKeys);
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });

  // JSON only: a text/plain body would otherwise reach the handlers as a string.
  app.removeContentTypeParser('text/plain');

  const metrics = options.metrics ?? new HookboxMetrics(service.controller, () => service.inFlight);
  if (!options.metrics) app.addHook('onClose', async () => metrics.close());

  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (!PUBLIC_PATHS.has(path) && !isPublicConsolePath(path)) keys.check(request.headers);
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

  app.setErrorHandler((error, request, reply) => {
    const failure = requestErrorOf(error, bodyLimit);
    const status = httpStatusOf(failure);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else
      request.log.info(
        { code: failure.code, field: failure.details.field, status },
        'request refused',
      );
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

  app.get('/healthz', async () => ({
    status: 'ok',
    version: options.version,
    environments: service.listEnvironments().length,
    interactions_in_flight: service.inFlight,
  }));

  const document = openApiDocument({ version: options.version, bodyLimit });
  app.get('/openapi.json', async () => document);

  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await metrics.text();
    return reply.header('content-type', contentType).send(body);
  });

  registerConsole(app, service);

  app.post('/v1beta/interactions', async (request, reply) => {
    const prepared = await service.prepare(request.body);
    if (!prepared.request.stream) return service.run(prepared);

    // Server-sent events: every step as it happens, then the final Interaction.
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // A client that goes away does not stop the interaction (GET finds it); its socket errors are moot.
    raw.on('error', (error) =>
      request.log.info({ err: error }, 'event stream closed by the client'),
    );
    const write = (event: InteractionEvent) => {
      if (!raw.destroyed && !raw.writableEnded) raw.write(sseFrame(event));
    };
    try {
      await service.run(prepared, write);
    } catch (error) {
      const failure = toHookboxError(error);
      request.log.error({ err: error }, 'streamed interaction failed');
      write({ event_type: 'error', error: { code: failure.code, message: failure.message } });
    } finally {
      if (!raw.writableEnded) raw.end();
    }
    return reply;
  });

  app.get<{ Params: { id: string } }>('/v1beta/interactions/:id', async (request) =>
    service.interactionAt(request.params.id),
  );

  app.get('/v1beta/environments', async () => ({ environments: service.listEnvironments() }));

  app.get<{ Params: { id: string } }>('/v1beta/environments/:id', async (request) =>
    service.environmentInfo(request.params.id),
  );

  app.delete<{ Params: { id: string } }>('/v1beta/environments/:id', async (request) => {
    await service.deleteEnvironment(request.params.id);
    return {};
  });

  registerFilesRoutes(app, service);

  // Network modes (docs/environments.md): the body is what `environment.network` takes.
  app.get<{ Params: { id: string } }>('/v1beta/environments/:id/network', async (request) =>
    service.networkOf(request.params.id),
  );
  app.patch<{ Params: { id: string } }>('/v1beta/environments/:id/network', async (request) =>
    service.replaceNetwork(request.params.id, request.body),
  );

  return app;
}
