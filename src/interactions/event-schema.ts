/** The streaming events of an interaction (`stream: true`). Depends on zod only. */
import { z } from 'zod';
import { interactionSchema } from './interaction-schema.js';
import { stepSchema } from './step-schema.js';

export const interactionEventSchema = z.discriminatedUnion('event_type', [
  z
    .object({ event_type: z.literal('interaction.created'), interaction: interactionSchema })
    .describe('First event: the interaction exists (status in_progress), with its environment.'),
  z
    .object({ event_type: z.literal('step'), index: z.number().int(), step: stepSchema })
    .describe('One step, when it has happened.'),
  z
    .object({
      event_type: z.literal('code_execution_output'),
      call_id: z.string(),
      stream: z.enum(['stdout', 'stderr']),
      chunk: z.string(),
    })
    .describe(
      'Output of a running code_execution, as it comes (docs/environments.md, "Live output"); the result step still holds all of it.',
    ),
  z
    .object({ event_type: z.literal('interaction.complete'), interaction: interactionSchema })
    .describe('Last event: the final Interaction (status completed or failed).'),
  z
    .object({
      event_type: z.literal('error'),
      error: z.object({ code: z.string(), message: z.string() }),
    })
    .describe('The stream broke off (the interaction may still be read with GET).'),
]);

export type InteractionEvent = z.output<typeof interactionEventSchema>;
