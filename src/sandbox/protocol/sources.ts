import { z } from 'zod';
import { base64, count, operation } from './common.js';

/** One source file as the stream carries it (docs/operations.md, Sources). */
const wireSource = z.strictObject({
  /** `agents`: under /.agents (written as root); `workspace`: under /workspace (as the tool user). */
  area: z.enum(['agents', 'workspace']),
  /** Relative to the area's folder; no `..`, no empty part. */
  path: z.string().min(1),
  /** The file's bytes: its size on the stream never grows with JSON escaping. */
  content_b64: base64.optional(),
  /** UTF-8 text, when not `content_b64`. */
  content: z.string().optional(),
  executable: z.boolean().optional(),
});

export const writeSources = operation(
  "Places a request's sources: gates into /.agents, workspace files as the tool user; all checked before the first is written.",
  z.strictObject({ files: z.array(wireSource) }),
  z.strictObject({ written: count }),
);

export const replaceAgents = operation(
  'Replaces everything under /.agents, or changes nothing (docs/security.md, "Replacing the gates").',
  z.strictObject({ files: z.array(wireSource) }),
  z.strictObject({ written: count }),
);

export const resetAgents = operation(
  'Empties /.agents.',
  z.strictObject({}),
  z.strictObject({ ok: z.literal(true) }),
);
