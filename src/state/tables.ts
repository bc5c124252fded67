// The tables of the controller's state (src/state/migrations.ts), as the queries see them, and the
// checks rows pass when read back: saved state is a trust boundary. JSON columns arrive as text
// from SQLite and as values from PostgreSQL; timestamps as text and as Date; flags as 0/1 and as
// booleans. Each check takes both.
import type { ColumnType } from 'kysely';
import { z } from 'zod';
import type { PendingApproval } from './approvals.js';

/** Written as JSON text; read back as text or as the value. */
type Json = ColumnType<unknown, string, string>;
/** Written as ISO text; read back as text or Date. */
type Stamp = ColumnType<unknown, string, string>;
/** Written as a boolean (PostgreSQL) or 0/1 (SQLite). */
type Flag = ColumnType<unknown, boolean | number, boolean | number>;

export interface Tables {
  environments: {
    id: string;
    container_id: string;
    created: Stamp;
    settings: Json;
    hooks_json: string | null;
    last_used: Stamp;
    controller_id: string | null;
    tenant: string | null;
  };
  interactions: {
    id: string;
    environment_id: string | null;
    status: string;
    body: Json;
    updated: Stamp;
    tenant: string | null;
  };
  interaction_steps: { interaction_id: string; idx: number; step: Json };
  approvals: {
    call_id: string;
    interaction_id: string;
    environment_id: string;
    status: string;
    body: Json;
    expires_at: Stamp;
  };
  approval_grants: { environment_id: string; key: string; created: Stamp };
  credentials: {
    id: string;
    tenant: string | null;
    name: string;
    header_names: Json;
    has_value: Flag;
    created: Stamp;
    secret: string;
    config: Json | null;
  };
  snapshots: {
    id: string;
    environment_id: string;
    volume: string;
    created: Stamp;
    expires_at: Stamp;
    tenant: string | null;
    recipe: Json;
    networked: Flag;
  };
  agents: { id: string; tenant: string | null; created: Stamp; body: Json };
}

/** A JSON column: text (SQLite) parsed, a value (PostgreSQL) as it is. */
const json = z
  .unknown()
  .transform((value): unknown => (typeof value === 'string' ? JSON.parse(value) : value));
const object = json.pipe(z.record(z.string(), z.unknown()));
/**
 * A timestamp: PostgreSQL's Date as ISO text; SQLite's text as written (a state file may hold any
 * text there, and it reads back unchanged).
 */
const stamp = z.union([z.date().transform((date) => date.toISOString()), z.string()]);
const flag = z.union([z.boolean(), z.number().transform((value) => value !== 0)]);

export const environmentRow = z.object({
  id: z.string(),
  container_id: z.string(),
  created: stamp,
  settings: object,
  hooks_json: z.string().nullable(),
  last_used: stamp,
  tenant: z.string().nullable().default(null),
});

export const interactionRow = z.object({
  id: z.string(),
  environment_id: z.string().nullable(),
  status: z.string(),
  body: object,
  updated: stamp,
  tenant: z.string().nullable().default(null),
});

export const stepRow = z.object({ step: json });

export const snapshotRecord = z.object({
  id: z.string(),
  environment_id: z.string(),
  volume: z.string(),
  created: stamp,
  expires_at: stamp,
  tenant: z.string().nullable(),
  recipe: object,
  networked: flag,
});

export const credentialRecord = z.object({
  id: z.string(),
  tenant: z.string().nullable(),
  name: z.string(),
  header_names: json.pipe(z.array(z.string())),
  has_value: flag,
  created: stamp,
  secret: z.string(),
  config: z
    .unknown()
    .optional()
    .transform((value) => (value ? object.parse(value) : null)),
});

export const agentRow = z.object({
  id: z.string(),
  tenant: z.string().nullable(),
  created: stamp,
  body: object,
});

/** A stored approval, read back. */
export const approvalBody: z.ZodType<PendingApproval> = json.pipe(
  z.object({
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
  }),
);
