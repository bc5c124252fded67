import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { describeIssues, knownKeysOf } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';
import { VOCABULARY_IDS } from '../tools/registry.js';
import { SNAPSHOT_ID_PATTERN } from '../ids.js';

const whole = (field: string, min: number, max: number) =>
  z
    .number({ error: `must be a number` })
    .int({ error: `must be a whole number from ${min} to ${max}` })
    .min(min, { error: `must be a whole number from ${min} to ${max}` })
    .max(max, { error: `must be a whole number from ${min} to ${max}` })
    .describe(field);

/**
 * The library's environment options at the trust boundary (`Controller.createEnvironment`): checked
 * like the API's requests, so `cpus: 0` is a UserError naming `sandbox.cpus`, not a 500 from the
 * engine. Sources and `network` are checked by their own schemas (config/sources.ts,
 * network/allowlist.ts).
 */
export function environmentOptionsSchema() {
  const cores = availableParallelism();
  return z.object({
    sources: z.unknown().optional(),
    network: z.unknown().optional(),
    vocabulary: z
      .enum(VOCABULARY_IDS as [string, ...string[]], {
        error: `must be one of ${VOCABULARY_IDS.join(', ')}`,
      })
      .optional(),
    toolTimeoutMs: whole('toolTimeoutMs', 1, 24 * 3600 * 1000).optional(),
    outputCapBytes: whole('outputCapBytes', 1, 64 * 1024 * 1024).optional(),
    backgroundProcesses: z.boolean({ error: 'must be true or false' }).optional(),
    snapshot: z
      .string({ error: 'must be a snapshot id ("snap_…")' })
      .regex(SNAPSHOT_ID_PATTERN, { error: 'must be a snapshot id ("snap_…")' })
      .optional(),
    sandbox: z
      .strictObject({
        memoryMb: whole('memoryMb', 64, 1024 * 1024).optional(),
        cpus: z
          .number({ error: 'must be a number' })
          .min(0.01, { error: `must be from 0.01 to ${cores} (the cores of this machine)` })
          .max(cores, { error: `must be from 0.01 to ${cores} (the cores of this machine)` })
          .optional(),
        pidsLimit: whole('pidsLimit', 16, 1 << 22).optional(),
        writableTmp: z.boolean({ error: 'must be true or false' }).optional(),
        writableTmpMb: whole('writableTmpMb', 1, 1024 * 1024).optional(),
        diskMb: whole('diskMb', 0, 1 << 30).optional(),
        // Its name's form is checked where the runtime is chosen (docs/gvisor.md).
        runtime: z.string({ error: 'must be a string' }).optional(),
      })
      .optional(),
  });
}

/** Checks library options; a UserError (`invalid_argument`) names the first field at fault. */
export function checkEnvironmentOptions(options: unknown): void {
  const schema = environmentOptionsSchema();
  const parsed = schema.safeParse(options);
  if (parsed.success) return;
  const problem = describeIssues(parsed.error.issues, knownKeysOf(schema))[0]!;
  throw new UserError('invalid_argument', `${problem.path}: ${problem.message}`, {
    details: { field: problem.path },
  });
}
