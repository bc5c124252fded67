// Stored agents (docs/agents.md): checks on create, per-tenant lookup, and how an interaction
// request naming one is rewritten. Pure logic on memory rows; the API and containers are covered by
// test/integration/sdk-agents.test.ts.
import { describe, expect, it } from 'vitest';
import { MemoryAgentRows } from '../../../src/agents/agent-rows.js';
import { Agents } from '../../../src/agents/agents.js';
import { UserError } from '../../../src/errors/errors.js';
import { agentDefinitionCheck } from '../../../src/interactions/agent-definition.js';
import { DriverRegistry } from '../../../src/interactions/drivers/index.js';
import type { Caller } from '../../../src/tenants/tenant.js';

const alice = { tenant: 'alice', role: 'tenant' } as Caller;
const bob = { tenant: 'bob', role: 'tenant' } as Caller;
const drivers = agentDefinitionCheck(new DriverRegistry());
const BASE = { type: 'remote', sources: [{ type: 'inline', target: 'a.txt', content: 'a' }] };

async function made(): Promise<Agents> {
  const agents = new Agents(new MemoryAgentRows());
  await agents.create(
    {
      id: 'helper',
      base_agent: 'scripted',
      system_instruction: 'Be brief.',
      tools: [{ type: 'code_execution' }],
      base_environment: BASE,
    },
    alice,
    drivers,
  );
  return agents;
}

describe('Agents.expand', () => {
  it("fills in the agent's base agent, instructions, tools and base environment", async () => {
    const agents = await made();
    expect(await agents.expand({ agent: 'helper', input: 'hi' }, alice)).toEqual({
      agent: 'scripted',
      input: 'hi',
      system_instruction: 'Be brief.',
      tools: [{ type: 'code_execution' }],
      environment: BASE,
    });
  });

  it("keeps the request's own instructions, tools and environment", async () => {
    const agents = await made();
    const own = {
      agent: 'helper',
      input: 'hi',
      system_instruction: 'Mine.',
      tools: [],
      environment: 'env_x',
    };
    expect(await agents.expand(own, alice)).toEqual({ ...own, agent: 'scripted' });
    const next = await agents.expand(
      { agent: 'helper', input: 'hi', previous_interaction_id: 'i_1' },
      alice,
    );
    expect(next).not.toHaveProperty('environment');
  });

  it("leaves another tenant's request, and a driver name, as they are", async () => {
    const agents = await made();
    const body = { agent: 'helper', input: 'hi' };
    expect(await agents.expand(body, bob)).toBe(body);
    const plain = { agent: 'scripted', input: 'hi' };
    expect(await agents.expand(plain, alice)).toBe(plain);
  });
});

describe('Agents.create', () => {
  it('refuses an id that names an agent hookbox runs itself, naming id', async () => {
    const agents = new Agents(new MemoryAgentRows());
    const refused = await agents
      .create({ id: 'scripted', base_agent: 'scripted' }, alice, drivers)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).details).toMatchObject({ field: 'id' });
  });
});
