import type { FastifyInstance } from 'fastify';
import type { Credential } from '../credentials/credentials.js';
import type { InteractionService } from '../interactions/service.js';
import { pageOf, pageOfItems } from '../resources/paging.js';
import { canSee, notFoundError } from '../tenants/ownership.js';
import type { Caller } from '../tenants/tenant.js';
import { checkQuery } from './routes-environments.js';

/**
 * The credentials API (docs/credentials.md): `POST /v1beta/credentials`, `GET /v1beta/credentials`,
 * `GET|PATCH|DELETE /v1beta/credentials/{id}`, for hookbox's `{name, value, headers}` credentials
 * and the Gemini SDKs' typed ones alike. No answer ever holds a value; another tenant's credential
 * is a 404 like a missing one (docs/tenants.md, "Ownership").
 */
export function registerCredentialsRoutes(app: FastifyInstance, service: InteractionService): void {
  const credentials = () => service.controller.credentials;

  const visible = async (id: string, caller: Caller | undefined): Promise<Credential> => {
    // An admin (or a keyless server) finds any tenant's; everyone else only their own.
    const tenant = caller === undefined || caller.role === 'admin' ? undefined : caller.tenant;
    const found = await credentials().get(id, tenant);
    if (!found || !canSee(found.tenant, caller)) throw notFoundError('credential', id, 'id');
    return found;
  };

  app.post('/v1beta/credentials', async (request, reply) => {
    checkQuery(request, []);
    const made = await credentials().create(request.body, request.caller?.tenant ?? null);
    request.log.info({ credential: made.id, tenant: made.tenant }, 'credential stored');
    return reply.status(201).send(made);
  });

  app.get('/v1beta/credentials', async (request) => {
    const page = pageOf(checkQuery(request, ['page_size', 'page_token']));
    const mine = (await credentials().list()).filter((credential) =>
      canSee(credential.tenant, request.caller),
    );
    const chosen = pageOfItems(
      mine,
      (credential) => `${credential.id}@${credential.tenant ?? ''}`,
      page,
    );
    return {
      credentials: chosen.items,
      ...(chosen.nextPageToken ? { next_page_token: chosen.nextPageToken } : {}),
    };
  });

  app.get<{ Params: { id: string } }>('/v1beta/credentials/:id', async (request) =>
    visible(request.params.id, request.caller),
  );

  app.patch<{ Params: { id: string } }>('/v1beta/credentials/:id', async (request) => {
    const query = checkQuery(request, ['update_mask']);
    const found = await visible(request.params.id, request.caller);
    const mask = typeof query.update_mask === 'string' ? query.update_mask : undefined;
    const updated = await credentials().update(found.id, found.tenant, request.body, mask);
    request.log.info({ credential: found.id, tenant: found.tenant }, 'credential updated');
    return updated;
  });

  app.delete<{ Params: { id: string } }>('/v1beta/credentials/:id', async (request) => {
    const found = await visible(request.params.id, request.caller);
    await credentials().delete(found.id, found.tenant);
    request.log.info({ credential: found.id, tenant: found.tenant }, 'credential deleted');
    return {};
  });
}
