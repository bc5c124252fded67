/**
 * The streaming events of an interaction (`stream: true`, and `GET …?stream=true`), as the Gemini
 * SDKs type them (docs/gemini-sdks.md, "Streaming"). Each carries an `event_id`; a stream resumes
 * after one with `last_event_id`. Depends on zod only.
 */
import { z } from 'zod';
import { INTERACTION_STATUSES } from '../record/types.js';
import { interactionSchema, usageSchema } from './interaction-schema.js';
import { stepSchema } from './step-schema.js';

const eventId = z.string().describe('Resume the stream after this event with `last_event_id`.');

export const stepDeltaSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({
      type: z.literal('code_execution_result'),
      result: z.string(),
      stream: z
        .enum(['stdout', 'stderr'])
        .describe('hookbox extension: which output the chunk came from.'),
    }),
  ])
  .describe(
    'A piece of a step as it comes: model text, or output of a running code_execution (docs/environments.md, "Live output").',
  );

export const interactionEventSchema = z.discriminatedUnion('event_type', [
  z
    .object({
      event_type: z.literal('interaction.created'),
      event_id: eventId,
      interaction: interactionSchema,
    })
    .describe('First event: the interaction exists, with its environment.'),
  z
    .object({
      event_type: z.literal('interaction.status_update'),
      event_id: eventId,
      interaction_id: z.string(),
      status: z.enum(INTERACTION_STATUSES),
      usage: usageSchema.optional(),
    })
    .describe('The status changed (queued → in_progress, then how it ended).'),
  z
    .object({
      event_type: z.literal('step.start'),
      event_id: eventId,
      index: z.number().int(),
      step: stepSchema,
    })
    .describe(
      'A step begins: whole, or (a model_output, a running code_execution_result) to be filled by deltas.',
    ),
  z
    .object({
      event_type: z.literal('step.delta'),
      event_id: eventId,
      index: z.number().int(),
      delta: stepDeltaSchema,
    })
    .describe('More of step `index`.'),
  z
    .object({ event_type: z.literal('step.stop'), event_id: eventId, index: z.number().int() })
    .describe('Step `index` is complete (its whole form is in the final Interaction).'),
  z
    .object({
      event_type: z.literal('interaction.completed'),
      event_id: eventId,
      interaction: interactionSchema,
    })
    .describe(
      'Last event: the final Interaction (completed, failed, cancelled or requires_action).',
    ),
  z
    .object({
      event_type: z.literal('error'),
      event_id: eventId,
      error: z.object({ code: z.string(), message: z.string() }),
    })
    .describe('The stream broke off (the interaction may still be read with GET).'),
]);

export type InteractionEvent = z.output<typeof interactionEventSchema>;
