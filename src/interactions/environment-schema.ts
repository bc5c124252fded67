/** The environment schemas of the Interactions API: one environment's info and the list. Depends on zod only. */
import { z } from 'zod';

export const environmentInfoSchema = z
  .object({
    environment_id: z.string(),
    type: z.literal('remote'),
    status: z
      .enum(['active', 'idle', 'lost'])
      .describe(
        '`active` while an interaction runs in it; `idle` otherwise; `lost` when its container ' +
          'no longer runs (killed from outside, or the engine lost it): calls in it fail.',
      ),
    lost_reason: z
      .string()
      .optional()
      .describe('With status `lost`: what became of the container.'),
    vocabulary: z.string().describe('The tool vocabulary it speaks, e.g. `2026-05`.'),
    hook_groups: z.array(z.string()).describe('The hooks.json groups now in force.'),
    created: z.string(),
    last_active: z.string(),
    expires_at: z
      .string()
      .nullable()
      .describe('When it is removed if it stays idle (null while active).'),
    tenant: z
      .string()
      .nullable()
      .optional()
      .describe('The tenant whose key made it (null: none); see docs/tenants.md.'),
  })
  .describe('GET /v1beta/environments/{id}');

export type EnvironmentInfo = z.output<typeof environmentInfoSchema>;

export const environmentListSchema = z.object({
  environments: z.array(
    z.object({
      environment_id: z.string(),
      type: z.literal('remote'),
      status: z.enum(['active', 'idle', 'lost']),
      tenant: z.string().nullable().optional(),
    }),
  ),
});
