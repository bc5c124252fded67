import type { FastifyInstance } from 'fastify';
import { agentDefinitionCheck } from '../interactions/agent-definition.js';
import type { InteractionService } from '../interactions/service.js';
import { pageOf, pageOfItems } from '../resources/paging.js';
import { checkQuery } from './routes-environments.js';

/**
 * The agents API (docs/agents.md): `POST /v1beta/agents`, `GET /v1beta/agents`,
 * `GET|DELETE /v1beta/agents/{id}`. Agents are their tenant's: another key's are a 404 like a
 * missing one (docs/tenants.md, "Ownership").
 */
export function registerAgentsRoutes(app: FastifyInstance, service: InteractionService): void {
  const agents = () => service.controller.agents;

  app.post('/v1beta/agents', async (request, reply) => {
    checkQuery(request, []);
    const made = await agents().create(
      request.body,
      request.caller,
      agentDefinitionCheck(service.drivers),
    );
    request.log.info({ agent: made.id, tenant: request.caller?.tenant }, 'agent stored');
    return reply.status(201).send(made);
  });

  app.get('/v1beta/agents', async (request) => {
    const page = pageOf(checkQuery(request, ['page_size', 'page_token']));
    const chosen = pageOfItems(await agents().list(request.caller), (agent) => agent.id, page);
    return {
      agents: chosen.items,
      ...(chosen.nextPageToken ? { next_page_token: chosen.nextPageToken } : {}),
    };
  });

  app.get<{ Params: { id: string } }>('/v1beta/agents/:id', async (request) =>
    agents().get(request.params.id, request.caller),
  );

  app.delete<{ Params: { id: string } }>('/v1beta/agents/:id', async (request) => {
    await agents().delete(request.params.id, request.caller);
    request.log.info({ agent: request.params.id, tenant: request.caller?.tenant }, 'agent deleted');
    return {};
  });
}
