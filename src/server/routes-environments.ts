import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import { SdkEnvironments } from '../resources/sdk-environments.js';

/** Refuses query parameters a route does not take, naming them. */
export function checkQuery(
  request: FastifyRequest,
  known: readonly string[],
): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(query).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new UserError(
      'invalid_argument',
      `query: unknown parameter ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: ${known.join(', ') || 'none'})`,
      { details: { field: 'query' } },
    );
  return query;
}

/**
 * Environments as a resource (docs/environments.md, "Environments as a resource"), the Gemini SDKs'
 * `environments.create/get/list/delete`: `POST|GET /v1beta/environments`,
 * `GET|DELETE /v1beta/environments/{id}`.
 */
export function registerEnvironmentRoutes(app: FastifyInstance, service: InteractionService): void {
  const environments = new SdkEnvironments(service);

  app.post('/v1beta/environments', async (request, reply) => {
    checkQuery(request, []);
    return reply.status(200).send(await environments.create(request.body, request.caller));
  });

  app.get('/v1beta/environments', async (request) =>
    environments.list(checkQuery(request, ['page_size', 'page_token']), request.caller),
  );

  app.get<{ Params: { id: string } }>('/v1beta/environments/:id', async (request) =>
    environments.get(request.params.id, request.caller),
  );

  app.delete<{ Params: { id: string } }>('/v1beta/environments/:id', async (request) => {
    await environments.delete(request.params.id, request.caller);
    return {};
  });
}
