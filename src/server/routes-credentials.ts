import type { FastifyInstance } from 'fastify';
import type { Credential } from '../credentials/credentials.js';
import type { InteractionService } from '../interactions/service.js';
import { canSee, notFoundError } from '../tenants/ownership.js';
import type { Caller } from '../tenants/tenant.js';

/**
 * The credentials API (docs/credentials.md): `POST /v1beta/credentials`, `GET /v1beta/credentials`,
 * `GET|DELETE /v1beta/credentials/{id}`. No answer ever holds a value; another tenant's credential
 * is a 404 like a missing one (docs/tenants.md, "Ownership").
 */
export function registerCredentialsRoutes(app: FastifyInstance, service: InteractionService): void {
  const credentials = () => service.controller.credentials;

  const visible = async (id: string, caller: Caller | undefined): Promise<Credential> => {
    const found = await credentials().get(id);
    if (!found || !canSee(found.tenant, caller)) throw notFoundError('credential', id, 'id');
    return found;
  };

  app.post('/v1beta/credentials', async (request, reply) => {
    const made = await credentials().create(request.body, request.caller?.tenant ?? null);
    request.log.info({ credential: made.id, tenant: made.tenant }, 'credential stored');
    return reply.status(201).send(made);
  });

  app.get('/v1beta/credentials', async (request) => ({
    credentials: (await credentials().list()).filter((credential) =>
      canSee(credential.tenant, request.caller),
    ),
  }));

  app.get<{ Params: { id: string } }>('/v1beta/credentials/:id', async (request) =>
    visible(request.params.id, request.caller),
  );

  app.delete<{ Params: { id: string } }>('/v1beta/credentials/:id', async (request) => {
    const found = await visible(request.params.id, request.caller);
    await credentials().delete(found.id);
    request.log.info({ credential: found.id, tenant: found.tenant }, 'credential deleted');
    return {};
  });
}
