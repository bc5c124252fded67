/** The answers of the snapshot and fork endpoints (docs/environments.md, "Snapshots and forks"). Depends on zod only. */
import { z } from 'zod';

export const snapshotInfoSchema = z
  .object({
    snapshot_id: z.string().describe('`snap_` and 20 characters.'),
    object: z.literal('snapshot'),
    environment_id: z.string().describe('The environment it was taken of.'),
    created: z.string(),
    expires_at: z
      .string()
      .describe('When it is deleted (its TTL: `hookbox serve --snapshot-ttl`, 24 h by default).'),
    tenant: z.string().nullable(),
    template: z.string(),
    vocabulary: z.string(),
    has_hooks: z.boolean().describe('Whether it has a `.agents/hooks.json` (its gates).'),
    network: z
      .boolean()
      .describe(
        'Whether its environment had a network (kept in memory only: lost on a restart, and the snapshot can then not be restored).',
      ),
    size_bytes: z
      .number()
      .int()
      .nullable()
      .describe(
        'What its volume holds on the engine’s disk, as last measured; it counts against its tenant’s `disk_mb` (docs/tenants.md). Null where the engine cannot measure volumes (Kubernetes) or has not measured it yet.',
      ),
  })
  .describe('A snapshot: an environment’s workspace and gates, and how it was made.');

export const snapshotListSchema = z.object({ snapshots: z.array(snapshotInfoSchema) });

export const forkAnswerSchema = z
  .object({ environments: z.array(z.object({ environment_id: z.string() })) })
  .describe('The new environments, each with a copy of the workspace and the same gates.');

export type SnapshotInfo = z.output<typeof snapshotInfoSchema>;
