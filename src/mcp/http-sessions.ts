/**
 * MCP sessions over Streamable HTTP, behind `hookbox serve`'s keys (docs/mcp.md, "Streamable
 * HTTP"): each session serves one environment to the tenant that opened it, and only to it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Environment } from '../controller/environment.js';
import { UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import { canSee } from '../tenants/ownership.js';
import type { Caller } from '../tenants/tenant.js';
import { mcpServerFor } from './server.js';
import type { SessionRecipe } from './session-recipe.js';
import { WaitingApprovals } from './waiting-approvals.js';

/** The header a Streamable HTTP client sends its session id in. */
export const SESSION_HEADER = 'mcp-session-id';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  environment: Environment;
  /** The tenant that opened it: no other tenant's key reaches it. */
  owner: string | null;
  /** Made for this session, so removed with it; an existing environment stays. */
  made: boolean;
  ended: boolean;
}

function noSession(id: string): UserError {
  // A stranger's session and a missing one answer alike (docs/tenants.md, "Ownership").
  return new UserError('not_found', `${SESSION_HEADER}: no MCP session ${JSON.stringify(id)}`, {
    details: { field: SESSION_HEADER },
  });
}

export class McpHttpSessions {
  private readonly sessions = new Map<string, Session>();
  /** Calls of these sessions waiting for the approvals API (clients without elicitation). */
  readonly waitingApprovals = new WaitingApprovals();

  constructor(
    private readonly service: InteractionService,
    private readonly version: string,
  ) {}

  /** The caller's session of this id (and of this environment, when the route names one). */
  find(id: string, caller: Caller | undefined, environmentId?: string): Session {
    const session = this.sessions.get(id);
    if (!session || !canSee(session.owner, caller)) throw noSession(id);
    if (environmentId !== undefined && session.environment.id !== environmentId)
      throw noSession(id);
    // An environment that expired or was deleted under a session ends it: the client starts anew.
    if (!this.service.controller.listEnvironments().includes(session.environment)) {
      void this.end(session);
      throw noSession(id);
    }
    this.service.leases.touch(session.environment.id);
    return session;
  }

  /** A session on an environment the caller may use (404 for anyone else's). */
  openOn(environmentId: string, caller: Caller | undefined): Promise<Session> {
    const environment = this.service.environmentInUse(environmentId, caller);
    return this.open(environment, caller, false);
  }

  /** A session on a new environment, made now from the recipe, owned by the caller. */
  async openNew(recipe: SessionRecipe, caller: Caller | undefined): Promise<Session> {
    let environment: Environment;
    if (recipe.snapshotId !== undefined) {
      environment = await this.service.snapshots.restoreFor(
        recipe.snapshotId,
        'snapshot_id',
        caller,
      );
    } else {
      await this.service.controller.templates.resolve(recipe.template, 'template');
      environment = await this.service.createEnvironmentFor(caller, {
        sources: recipe.sources,
        vocabulary: recipe.vocabulary,
        ...(recipe.template === undefined ? {} : { template: recipe.template }),
      });
    }
    return this.open(environment, caller, true);
  }

  /** Hands one HTTP request to its session; a session that never got going is ended. */
  async handle(
    session: Session,
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const id = session.environment.id;
    this.service.leases.acquire(id);
    try {
      await session.transport.handleRequest(request, response, body);
    } finally {
      this.service.leases.release(id);
    }
    if (session.transport.sessionId === undefined) await this.end(session);
  }

  /** Ends every session (the server is closing). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((session) => this.end(session)));
  }

  private async open(
    environment: Environment,
    caller: Caller | undefined,
    made: boolean,
  ): Promise<Session> {
    const server = mcpServerFor({
      vocabulary: environment.vocabulary,
      environment: async () => environment,
      decider: caller ? `tenant ${caller.tenant}` : 'the local user',
      waitingApprovals: this.waitingApprovals,
      approvalTimeoutMs: this.service.approvalTtlMs,
      version: this.version,
      ...(caller && caller.tenant !== environment.tenant ? { actor: caller.tenant } : {}),
    });
    const session: Session = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          this.sessions.set(sessionId, session);
        },
        // A DELETE is answered once the environment is gone.
        onsessionclosed: () => this.end(session),
      }),
      server,
      environment,
      owner: caller?.tenant ?? environment.tenant,
      made,
      ended: false,
    };
    // DELETE from the client, or the transport closing: the session ends (docs/mcp.md, "Lifecycle").
    session.transport.onclose = () => void this.end(session);
    await server.connect(session.transport);
    return session;
  }

  private async end(session: Session): Promise<void> {
    if (session.ended) return;
    session.ended = true;
    const id = session.transport.sessionId;
    if (id !== undefined) this.sessions.delete(id);
    await session.server.close().catch(() => {});
    if (session.made) await this.service.deleteEnvironment(session.environment.id).catch(() => {});
  }
}
