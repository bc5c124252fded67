// How a stored agent's definition is checked (docs/agents.md): with the interaction request's own
// schemas for its base environment and tools, and against the drivers this server runs.
import { z } from 'zod';
import { AGENT_ID, type AgentDefinition, type AgentDefinitionCheck } from '../agents/agents.js';
import { UserError } from '../errors/errors.js';
import type { DriverRegistry } from './drivers/index.js';
import { parseWithSchema } from './request.js';
import { environmentSpecSchema, toolSchema } from './request-schema.js';

export const agentSchema = z.strictObject({
  id: z.string().regex(AGENT_ID, {
    error: 'must be 1-63 lowercase letters, digits or hyphens, starting with a letter',
  }),
  base_agent: z
    .string()
    .min(1, { error: 'must name the agent that runs it, e.g. "scripted" or a Gemini model' }),
  base_environment: environmentSpecSchema.optional(),
  system_instruction: z.string().optional(),
  tools: z.array(toolSchema).optional(),
  agent_config: z.record(z.string(), z.unknown()).optional(),
  description: z.string().optional(),
});

/** The check of {@link Agents.create}: the schema, then `base_agent` and `id` against `drivers`. */
export function agentDefinitionCheck(drivers: DriverRegistry): AgentDefinitionCheck {
  return async (input: unknown): Promise<AgentDefinition> => {
    const made = parseWithSchema(agentSchema, input, 'agent');
    try {
      await drivers.resolve(made.base_agent);
    } catch (error) {
      // A known agent this server cannot run yet (no key set) may still be defined.
      if (error instanceof UserError && error.code === 'invalid_argument')
        throw new UserError(
          'invalid_argument',
          `base_agent: ${error.message.replace(/^agent: /, '')}`,
          {
            details: { field: 'base_agent' },
          },
        );
    }
    // An id that names an agent hookbox runs itself would hide it from the tenant (docs/agents.md).
    if (
      await drivers.resolve(made.id).then(
        () => true,
        (error: unknown) => !(error instanceof UserError && error.code === 'invalid_argument'),
      )
    )
      throw new UserError(
        'invalid_argument',
        `id: ${JSON.stringify(made.id)} names an agent hookbox runs itself; choose another`,
        {
          details: { field: 'id' },
        },
      );
    return made;
  };
}
