import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';

/** The query of a fork: `count` only (checked by the service: a whole number 1..10). */
function countOf(request: FastifyRequest): unknown {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(query).filter((key) => key !== 'count');
  if (unknown.length > 0)
    throw new UserError(
      'invalid_argument',
      `query: unknown parameter ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: count)`,
      { details: { field: 'query' } },
    );
  return query.count;
}

/**
 * Snapshots and forks (docs/environments.md, "Snapshots and forks"):
 * `POST /v1beta/environments/{id}/snapshots`, `POST /v1beta/environments/{id}/fork?count=N`,
 * `GET /v1beta/snapshots`, `GET|DELETE /v1beta/snapshots/{id}`. No body is read.
 */
export function registerSnapshotRoutes(app: FastifyInstance, service: InteractionService): void {
  const { snapshots } = service;
  app.post<{ Params: { id: string } }>(
    '/v1beta/environments/:id/snapshots',
    async (request, reply) => {
      const info = await snapshots.create(request.params.id, request.caller);
      return reply.status(201).send(info);
    },
  );
  app.post<{ Params: { id: string } }>('/v1beta/environments/:id/fork', async (request, reply) => {
    const forked = await snapshots.fork(request.params.id, countOf(request), request.caller);
    return reply.status(201).send(forked);
  });
  app.get('/v1beta/snapshots', async (request) => snapshots.list(request.caller));
  app.get<{ Params: { id: string } }>('/v1beta/snapshots/:id', async (request) =>
    snapshots.info(request.params.id, request.caller),
  );
  app.delete<{ Params: { id: string } }>('/v1beta/snapshots/:id', async (request) => {
    await snapshots.delete(request.params.id, request.caller);
    return {};
  });
}
