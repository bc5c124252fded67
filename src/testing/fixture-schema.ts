import { z } from 'zod';
import { VOCABULARIES, type VocabularyId } from '../tools/registry.js';

/** A text expectation: the whole text, or an RE2-free JavaScript regular expression it must match. */
const textExpectation = z.union(
  [z.strictObject({ exact: z.string() }), z.strictObject({ regex: z.string() })],
  { error: 'must be {"exact": "..."} or {"regex": "..."}' },
);

const workspaceExpectation = z.strictObject({
  /** Paths (relative to /workspace) that must exist after the call. */
  exists: z.array(z.string()).optional(),
  /** Paths that must not exist after the call. */
  absent: z.array(z.string()).optional(),
  /** Files whose content must match. */
  content: z.record(z.string(), textExpectation).optional(),
});

const expectationSchema = z.strictObject({
  blocked: z.boolean().optional(),
  reason: textExpectation.optional(),
  exit_code: z.number().int().optional(),
  stdout: textExpectation.optional(),
  stderr: textExpectation.optional(),
  /** The `error` of a file tool's result, or the post payload's error text. */
  error: textExpectation.optional(),
  workspace: workspaceExpectation.optional(),
});

const caseSchema = z.strictObject({
  name: z.string().min(1),
  call: z.strictObject({
    name: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
  }),
  expect: expectationSchema.default({}),
  /**
   * A destructive case: the runner also runs it with the gate switched off and checks that the
   * sandbox alone contains it (nothing outside /workspace changed; the environment still works).
   */
  destructive: z.boolean().default(false),
});

/** One fixture file: shared sources and gate, and many cases. */
export const fixtureSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  /** A gate shipped in hooks-scripts/ (its folder and its hooks.json are installed under /.agents). */
  gate: z
    .string()
    .regex(/^[a-z0-9-]+$/, { error: 'must name a folder of hooks-scripts/, e.g. "destructive"' })
    .optional(),
  /** Sources of the environment: a folder (relative to the fixture file) and/or inline sources. */
  sources: z
    .strictObject({
      dir: z.string().optional(),
      inline: z
        .array(
          z.strictObject({
            type: z.literal('inline').default('inline'),
            target: z.string(),
            content: z.string(),
            encoding: z.enum(['utf-8', 'base64']).optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  /** Files placed in /workspace before each case (path relative to /workspace → content). */
  workspace_files: z.record(z.string(), z.string()).optional(),
  vocabulary: z.enum(Object.keys(VOCABULARIES) as [VocabularyId, ...VocabularyId[]]).optional(),
  /** The sandbox template the cases run on (docs/templates.md). @default "default" */
  template: z.string().optional(),
  /** Timeout of each call, in milliseconds. @default 20000 */
  tool_timeout_ms: z.number().int().positive().optional(),
  cases: z.array(caseSchema).min(1, { error: 'must hold at least one case' }),
});

export type Fixture = z.infer<typeof fixtureSchema>;
export type FixtureCase = z.infer<typeof caseSchema>;
export type Expectation = z.infer<typeof expectationSchema>;
export type TextExpectation = z.infer<typeof textExpectation>;

/** The published JSON Schema of fixture files (docs/fixture.schema.json is generated from it). */
export function fixtureJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(fixtureSchema, { io: 'input' });
}
