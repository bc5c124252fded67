// Stored agents (docs/agents.md): a base agent (the driver that runs it), a base environment (the
// gates and files every interaction with it starts from), instructions and tools, kept per tenant.
import { UserError } from '../errors/errors.js';
import type { Caller } from '../tenants/tenant.js';
import type { AgentRow, AgentRows } from './agent-rows.js';

/** An id a client chooses: lowercase letters, digits and hyphens, starting with a letter. */
export const AGENT_ID = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * A checked agent definition. Its schema is the interaction request's (the base environment and
 * tools are the request's own fields), so it is checked on that floor:
 * src/interactions/agent-definition.ts.
 */
export type AgentDefinition = {
  id: string;
  base_agent: string;
  base_environment?: unknown;
  system_instruction?: string;
  tools?: unknown[];
  agent_config?: Record<string, unknown>;
  description?: string;
};

/**
 * Checks a definition as a client sent it: its shape, and that `base_agent` is an agent hookbox
 * knows and `id` none it runs itself. A {@link UserError} names the field at fault.
 */
export type AgentDefinitionCheck = (input: unknown) => Promise<AgentDefinition>;

/** An agent as the API shows it: the definition it was created with, and when. */
export type Agent = AgentDefinition & { created: string };

/** Two tenants may both have an agent `reviewer` (docs/tenants.md): rows are keyed by both. */
const rowIdOf = (id: string, tenant: string | null) => `${id}@${tenant ?? ''}`;

const viewOf = (row: AgentRow): Agent =>
  ({ ...row.body, id: row.id.split('@')[0]!, created: row.created }) as Agent;

/** The tenant whose agents a caller sees: an admin or a keyless server sees every tenant's. */
const tenantOf = (caller: Caller | undefined) => caller?.tenant ?? null;

/** The agents of a controller: create, get, list and delete, each scoped to the caller's tenant. */
export class Agents {
  constructor(private readonly rows: AgentRows) {}

  /** Checks (with `check`) and stores a definition; an id the tenant has is a conflict. */
  async create(
    input: unknown,
    caller: Caller | undefined,
    check: AgentDefinitionCheck,
  ): Promise<Agent> {
    const made = await check(input);
    const id = rowIdOf(made.id, tenantOf(caller));
    if (await this.rows.get(id))
      throw new UserError('conflict', `id: agent ${JSON.stringify(made.id)} exists`, {
        details: { field: 'id' },
      });
    const row: AgentRow = {
      id,
      tenant: tenantOf(caller),
      created: new Date().toISOString(),
      body: made,
    };
    await this.rows.save(row);
    return viewOf(row);
  }

  /** The caller's agent `id`, or undefined (another tenant's is as missing as none). */
  async find(id: string, caller: Caller | undefined): Promise<Agent | undefined> {
    if (!AGENT_ID.test(id)) return undefined;
    const row = await this.rows.get(rowIdOf(id, tenantOf(caller)));
    return row ? viewOf(row) : undefined;
  }

  async get(id: string, caller: Caller | undefined): Promise<Agent> {
    const found = await this.find(id, caller);
    if (!found)
      throw new UserError('not_found', `id: no agent ${JSON.stringify(id)}`, {
        details: { field: 'id' },
      });
    return found;
  }

  /** The caller's agents, oldest first. */
  async list(caller: Caller | undefined): Promise<Agent[]> {
    const tenant = tenantOf(caller);
    return (await this.rows.list()).filter((row) => row.tenant === tenant).map(viewOf);
  }

  async delete(id: string, caller: Caller | undefined): Promise<void> {
    await this.get(id, caller);
    await this.rows.delete(rowIdOf(id, tenantOf(caller)));
  }

  /**
   * An interaction request whose `agent` names one of the caller's agents, rewritten to run on it
   * (docs/agents.md, "Interactions with an agent"): its base agent drives, and its instructions,
   * tools and base environment apply unless the request gives its own. Any other body is returned
   * as it is, for the request's own checks.
   */
  async expand(body: unknown, caller: Caller | undefined): Promise<unknown> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    const request = body as Record<string, unknown>;
    if (typeof request.agent !== 'string') return body;
    const agent = await this.find(request.agent, caller);
    if (!agent) return body;
    // A continuation stays in its interaction's environment, which the agent's first one made.
    const ownEnvironment =
      request.environment !== undefined || request.previous_interaction_id !== undefined;
    return {
      ...request,
      agent: agent.base_agent,
      ...(request.system_instruction === undefined && agent.system_instruction !== undefined
        ? { system_instruction: agent.system_instruction }
        : {}),
      ...(request.tools === undefined && agent.tools !== undefined ? { tools: agent.tools } : {}),
      ...(!ownEnvironment && agent.base_environment !== undefined
        ? { environment: agent.base_environment }
        : {}),
    };
  }
}
