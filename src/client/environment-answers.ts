import { z } from 'zod';
import { hookOutcomeSchema } from '../interactions/schema.js';

/**
 * The answers of the environment endpoints beside the Interactions API (docs/environments.md), as
 * the TS client checks them: a server of another version is caught here, not deep in a caller.
 */
const networkStateSchema = z.union([
  z.literal('disabled'),
  z.object({ allowlist: z.array(z.object({ domain: z.string() })) }),
]);

export const networkAnswerSchema = z.object({
  environment_id: z.string(),
  network: networkStateSchema,
});

export const folderListingSchema = z.object({
  path: z.string(),
  type: z.literal('directory'),
  entries: z.array(
    z.object({
      name: z.string(),
      type: z.enum(['file', 'directory', 'symlink', 'other']),
      size: z.number(),
    }),
  ),
});

export const fileChangeSchema = z.object({
  call_id: z.string(),
  path: z.string(),
  files: z.number(),
  bytes: z.number(),
  hooks: z.array(hookOutcomeSchema),
});
