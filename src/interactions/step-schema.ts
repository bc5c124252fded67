/** The step schemas of an Interaction (docs/contract.md §9): hook outcomes, calls and their results. Depends on zod only. */
import { z } from 'zod';

export const hookOutcomeSchema = z
  .object({
    source: z.enum(['sandbox', 'controller']),
    group: z.string(),
    event: z.enum(['pre_tool_execution', 'post_tool_execution']),
    type: z.string().describe('`command`, `http`, or for controller hooks `policy` / `hook`.'),
    handler: z.string().describe('The command line, URL or hook name that ran.'),
    outcome: z.enum(['allow', 'deny', 'ask', 'error', 'timeout', 'unrecognized', 'skipped', 'ok']),
    reason: z.string().nullable(),
    exit_code: z.number().nullable(),
    duration_ms: z.number(),
    dialect: z
      .string()
      .optional()
      .describe('`claude-code` or `antigravity-cli` for a dialect group (docs/dialects.md).'),
    raw_answer: z.string().optional().describe('The answer as the hook gave it (capped).'),
    force: z.boolean().optional().describe('`force_ask`: no cached approval satisfies it.'),
    updated_args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The arguments the hook rewrote the call into (`updatedInput`).'),
    additional_context: z
      .string()
      .optional()
      .describe('Text the hook added to what the model is shown (`additionalContext`).'),
    runner: z
      .enum(['spawned', 'prestarted', 'worker', 'worker_fallback'])
      .optional()
      .describe('For sandbox `command` handlers: which process answered (docs/gates.md).'),
  })
  .describe('One hook run (docs/contract.md §8).');

const textContentSchema = z.object({ type: z.literal('text'), text: z.string() });

export const userInputStepSchema = z.object({
  type: z.literal('user_input'),
  content: z.array(textContentSchema),
});

export const modelOutputStepSchema = z.object({
  type: z.literal('model_output'),
  content: z.array(textContentSchema),
});

const originalArguments = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('The arguments as the model or script sent them, when a controller hook rewrote them.');

export const codeExecutionCallStepSchema = z
  .object({
    type: z.literal('code_execution_call'),
    id: z.string(),
    arguments: z.record(z.string(), z.unknown()).describe('`{code, language}` as called.'),
    original_arguments: originalArguments,
    hooks: z.array(hookOutcomeSchema).describe('The pre_tool_execution hook runs.'),
  })
  .describe('A `code_execution` call.');

const resultFields = {
  call_id: z.string(),
  is_error: z
    .boolean()
    .describe(
      'True when a hook blocked the call, the tool failed (non-zero exit, timeout, file error) or the call was refused.',
    ),
  blocked: z.boolean().describe('True when a pre hook denied the call: the tool did not run.'),
  error: z
    .string()
    .optional()
    .describe("The post payload's `error` text when the tool failed (docs/contract.md §6)."),
  additional_context: z
    .array(z.string())
    .optional()
    .describe(
      "Hooks' `additionalContext`: shown to the model after the result (docs/dialects.md).",
    ),
  hooks: z.array(hookOutcomeSchema).describe('The post_tool_execution hook runs.'),
};

const structuredResultSchema = z
  .record(z.string(), z.unknown())
  .nullable()
  .describe(
    "hookbox extension: the tool's result object (`exit_code`, `stdout`, `stderr`, `timed_out`, …) as the model is shown it, after controller hooks' presentation rewrites; null when the tool did not run.",
  );

export const codeExecutionResultStepSchema = z
  .object({
    type: z.literal('code_execution_result'),
    ...resultFields,
    result: z
      .string()
      .describe(
        'What the code printed: stdout, then stderr (as the SDKs type it, a string); for a blocked call, the deny reason; for a call refused before the gates, why.',
      ),
    structured_result: structuredResultSchema,
  })
  .describe('What a `code_execution` call came to.');

export const functionCallStepSchema = z
  .object({
    type: z.literal('function_call'),
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    original_arguments: originalArguments,
    hooks: z.array(hookOutcomeSchema).describe('The pre_tool_execution hook runs.'),
  })
  .describe('A call of a file tool (`read_file`, `write_file`, …).');

export const functionResultStepSchema = z
  .object({
    type: z.literal('function_result'),
    name: z.string(),
    ...resultFields,
    result: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .describe(
        "The tool's result object as the model is shown it (after controller hooks' presentation rewrites); for a blocked call, the deny reason; for a call refused before the gates, why.",
      ),
  })
  .describe('What a file tool call came to.');

export const stepSchema = z.discriminatedUnion('type', [
  userInputStepSchema,
  modelOutputStepSchema,
  codeExecutionCallStepSchema,
  codeExecutionResultStepSchema,
  functionCallStepSchema,
  functionResultStepSchema,
]);

export type HookOutcomeRecord = z.output<typeof hookOutcomeSchema>;
export type Step = z.output<typeof stepSchema>;
export type CallStep =
  z.output<typeof codeExecutionCallStepSchema> | z.output<typeof functionCallStepSchema>;
export type ResultStep =
  z.output<typeof codeExecutionResultStepSchema> | z.output<typeof functionResultStepSchema>;
