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

/**
 * An environment as `GET|POST /v1beta/environments` answer it: the Gemini SDKs' Environment (`id`,
 * `status`, `created`, `sources`, `network`, `size_bytes`, `file_count`) with hookbox's own fields
 * beside it (docs/environments.md, "Environments as a resource").
 */
export const environmentResourceSchema = environmentInfoSchema
  .extend({
    id: z.string().describe("The SDKs' name for `environment_id` (both are given)."),
    status: z
      .enum(['active', 'lost'])
      .describe('`active` while its container runs (see `busy`); `lost` when it no longer does.'),
    busy: z.boolean().describe('Whether an interaction runs in it now.'),
    updated: z.string(),
    last_accessed: z.string(),
    sources: z
      .array(
        z.object({
          type: z.enum(['inline', 'repository']),
          target: z.string(),
          encoding: z.string().optional(),
          source: z.string().optional(),
        }),
      )
      .describe('The sources it was made with, without their content.'),
    network: z.union([
      z.literal('disabled'),
      z.object({ allowlist: z.array(z.object({ domain: z.string() })) }),
    ]),
    size_bytes: z
      .string()
      .optional()
      .describe('Bytes of the files under /workspace (absent past 10,000 entries).'),
    file_count: z
      .string()
      .optional()
      .describe('Files under /workspace (absent past 10,000 entries).'),
  })
  .describe('GET /v1beta/environments/{id}, POST /v1beta/environments');

export type EnvironmentResource = z.output<typeof environmentResourceSchema>;

export const environmentResourceListSchema = z.object({
  environments: z.array(environmentResourceSchema),
  next_page_token: z.string().optional(),
});
