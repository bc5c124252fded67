import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import { McpHttpSessions, SESSION_HEADER } from '../mcp/http-sessions.js';
import { sessionRecipeOf } from '../mcp/session-recipe.js';
import { registerApprovalRoutes } from './routes-approvals.js';

type McpRequest = FastifyRequest<{ Params: { id?: string } }>;

function sessionIdOf(request: FastifyRequest): string | undefined {
  const header = request.headers[SESSION_HEADER];
  return Array.isArray(header) ? header[0] : header;
}

/**
 * MCP over Streamable HTTP (docs/mcp.md, "Streamable HTTP"), behind the same keys and tenants as
 * every route: `/v1beta/environments/{id}/mcp` serves an existing environment, and `/v1beta/mcp`
 * makes a new one per session (removed when the session ends). GET opens the server's event
 * stream, POST carries JSON-RPC, DELETE ends the session.
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  service: InteractionService,
  version: string,
): void {
  const sessions = new McpHttpSessions(service, version);
  app.addHook('onClose', async () => sessions.closeAll());
  registerApprovalRoutes(app, service, sessions.waitingApprovals);

  const handle = async (request: McpRequest, reply: FastifyReply) => {
    const environmentId = request.params.id;
    const sessionId = sessionIdOf(request);
    let session;
    if (sessionId !== undefined) {
      session = sessions.find(sessionId, request.caller, environmentId);
    } else if (request.method === 'POST' && isInitializeRequest(request.body)) {
      session =
        environmentId === undefined
          ? await sessions.openNew(sessionRecipeOf(request.query, request.headers), request.caller)
          : await sessions.openOn(environmentId, request.caller);
    } else {
      throw new UserError(
        'invalid_argument',
        `${SESSION_HEADER}: required (a session starts with a POST of an MCP initialize request)`,
        { details: { field: SESSION_HEADER } },
      );
    }
    // The SDK's transport answers from here: JSON, or an event stream for progress and questions.
    reply.hijack();
    await sessions.handle(session, request.raw, reply.raw, request.body);
    return reply;
  };

  const methods = ['GET', 'POST', 'DELETE'] as const;
  app.route({ method: [...methods], url: '/v1beta/environments/:id/mcp', handler: handle });
  app.route({ method: [...methods], url: '/v1beta/mcp', handler: handle });
}
