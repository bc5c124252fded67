/** The Interaction schema (docs/contract.md §9): its status, steps and pending approvals. Depends on zod only. */
import { z } from 'zod';
import { INTERACTION_STATUSES } from '../record/types.js';
import { stepSchema } from './step-schema.js';

export const usageSchema = z
  .object({
    total_input_tokens: z.number().int(),
    total_output_tokens: z.number().int(),
    total_thought_tokens: z.number().int().optional(),
    total_tokens: z.number().int(),
  })
  .describe(
    "Tokens the model driver reported, summed over the interaction's model requests (0 for `scripted`).",
  );

export const pendingApprovalSchema = z
  .object({
    call_id: z.string(),
    tool_call: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
    hooks: z
      .array(
        z.object({
          group: z.string(),
          handler: z.string(),
          reason: z.string().nullable(),
          force: z.boolean(),
        }),
      )
      .describe('The hooks that answered `ask`.'),
    reason: z.string(),
    status: z.enum(['pending', 'approved', 'denied', 'expired']),
    expires_at: z.string().describe('Unanswered by then, it counts as denied.'),
  })
  .describe('A call waiting for an approver (status `requires_action`).');

export const interactionSchema = z
  .object({
    id: z.string(),
    object: z.literal('interaction'),
    status: z.enum(INTERACTION_STATUSES),
    agent: z.string(),
    environment_id: z.string(),
    previous_interaction_id: z.string().optional(),
    steps: z.array(stepSchema),
    output_text: z
      .string()
      .describe('The text of the model_output steps after the last tool step ("" if none).'),
    labels: z.record(z.string(), z.string()).optional().describe('As the request gave them.'),
    usage: usageSchema.optional(),
    created: z.string().describe('ISO 8601 time.'),
    updated: z.string().describe('ISO 8601 time.'),
    error: z
      .object({ code: z.string(), message: z.string() })
      .optional()
      .describe('Why the interaction failed (status "failed").'),
    pending_approvals: z
      .array(pendingApprovalSchema)
      .optional()
      .describe(
        'Status `requires_action`: the calls waiting for an approver; continue with `previous_interaction_id` and `{"type": "approval", "call_id", "approve"}` items.',
      ),
  })
  .describe('An interaction: its steps, in order, and the environment it ran in.');

export type Interaction = z.output<typeof interactionSchema>;
export type Usage = z.output<typeof usageSchema>;
