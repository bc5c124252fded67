import { z } from 'zod';
import type { PendingApproval } from '../interactions/approval-store.js';

/** A stored approval, read back from a database (saved state is a trust boundary). */
export const approvalRowSchema: z.ZodType<PendingApproval> = z.object({
  call_id: z.string(),
  interaction_id: z.string(),
  environment_id: z.string(),
  tool_call: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
  hooks: z.array(
    z.object({
      group: z.string(),
      handler: z.string(),
      reason: z.string().nullable(),
      force: z.boolean(),
    }),
  ),
  reason: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'expired']),
  created: z.string(),
  expires_at: z.string(),
});
