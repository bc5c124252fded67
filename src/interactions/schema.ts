/**
 * The wire shapes of the Interactions API (docs/contract.md §9), as zod schemas: the request the server validates
 * at its trust boundary, the Interaction it answers with, its steps, environments and errors. The
 * OpenAPI document and the TypeScript client's types come from these same schemas.
 *
 * This module depends on zod only, so the client can import it without the server.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Request

const textItemSchema = z
  .strictObject({
    type: z.literal('text'),
    text: z.string(),
  })
  .describe('Text for the model. Text items together make the interaction\'s "user_input" step.');

const argumentsSchema = z.record(z.string(), z.unknown(), {
  error: 'must be a JSON object of arguments',
});

const codeExecutionCallItemSchema = z
  .strictObject({
    type: z.literal('code_execution_call'),
    arguments: argumentsSchema.describe('`{code, language}`: the arguments of `code_execution`.'),
  })
  .describe(
    'A `code_execution` call for the `scripted` agent to run, through the gates, in input order.',
  );

const toolCallItemSchema = z
  .strictObject({
    type: z.literal('tool_call'),
    name: z.string().describe('A built-in tool: `read_file`, `write_file`, `list_files`, …'),
    arguments: argumentsSchema,
  })
  .describe('A call of any built-in tool for the `scripted` agent to run, in input order.');

const approvalItemSchema = z
  .strictObject({
    type: z.literal('approval'),
    call_id: z.string().describe('The call waiting for approval (`pending_approvals[].call_id`).'),
    approve: z.boolean({ error: 'must be true or false' }),
    reason: z.string().optional().describe('Why, for the record.'),
  })
  .describe(
    'Answers a pending approval of the interaction named by `previous_interaction_id` (docs/dialects.md, "ask"): the call runs, or is blocked.',
  );

export const INPUT_ITEM_TYPES = ['text', 'code_execution_call', 'tool_call', 'approval'] as const;

export const inputItemSchema = z.discriminatedUnion(
  'type',
  [textItemSchema, codeExecutionCallItemSchema, toolCallItemSchema, approvalItemSchema],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `must be one of ${INPUT_ITEM_TYPES.map((t) => JSON.stringify(t)).join(', ')}`
        : undefined,
  },
);

export const inputSchema = z.union([z.string(), z.array(inputItemSchema)], {
  error: 'must be a string or an array of content items ({"type": "text", "text": "…"}, …)',
});

export const SUPPORTED_TOOL_TYPES = ['code_execution'] as const;

export const toolSchema = z
  .strictObject({
    type: z.string(),
  })
  .describe(
    'A tool to enable. `code_execution` is the one hookbox offers; the file tools come with every ' +
      'environment. Without `tools`, every tool of the environment is enabled.',
  );

const allowlistEntrySchema = z.strictObject({
  domain: z.string(),
  transform: z.record(z.string(), z.string()).optional(),
});

export const networkSchema = z.union(
  [
    z.literal('disabled'),
    z.strictObject({
      allowlist: z.array(allowlistEntrySchema),
    }),
  ],
  { error: 'must be "disabled" or {"allowlist": [...]}' },
);

export const inlineSourceSchema = z
  .strictObject({
    type: z.literal('inline', {
      error: 'must be "inline" (hookbox has no "repository" or "gcs" sources)',
    }),
    target: z
      .string()
      .describe(
        'Path relative to the environment root: `.agents/…` (hooks) or `workspace/…` (files).',
      ),
    content: z.string().describe('The file: its text, or its bytes in base64 with `encoding`.'),
    encoding: z
      .enum(['utf-8', 'base64'], { error: 'must be "utf-8" or "base64"' })
      .optional()
      .describe(
        '`utf-8` (default): `content` is the text. `base64`: `content` is the bytes in base64 ' +
          '(RFC 4648, padded), written exactly; for binary files.',
      ),
  })
  .describe('A file placed in the environment (docs/contract.md §3).');

export const environmentConfigSchema = z
  .strictObject({
    type: z.literal('remote'),
    environment_id: z
      .string()
      .optional()
      .describe(
        'An existing environment: its sources are added (and `.agents/` sources replace its gates).',
      ),
    sources: z.array(inlineSourceSchema).optional(),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        'Environment variables for tool code (not hooks), name → value; only when making an environment (docs/environments.md).',
      ),
    network: networkSchema
      .optional()
      .describe(
        'No network unless an allowlist is given: then the only way out is the egress proxy, which ' +
          'lets through the listed domains and adds their transform headers on the wire (docs/contract.md §7).',
      ),
    template: z
      .string()
      .optional()
      .describe(
        'hookbox extension: the sandbox template of a new environment (`default`, `full`, or one ' +
          'built with `hookbox template build`); an unknown one is a 400 listing the known ones.',
      ),
    sandbox: z
      .strictObject({
        runtime: z
          .string()
          .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, {
            error: 'must be an OCI runtime name such as "runc" or "runsc"',
          })
          .optional()
          .describe('The OCI runtime: "runc" (default) or "runsc" for gVisor (docs/gvisor.md).'),
      })
      .optional()
      .describe("How a new environment's sandbox runs; only when making one."),
  })
  .describe('A new environment made from sources, or sources added to an existing one.');

export const environmentSpecSchema = z.union([z.string(), environmentConfigSchema], {
  error: 'must be "remote", an environment id ("env_…"), or an object {"type": "remote", …}',
});

export const interactionRequestSchema = z
  .strictObject({
    agent: z
      .string()
      .min(1)
      .describe(
        'Selects the model driver: `scripted` (offline), a Gemini agent or model name, or ' +
          '`openai:<model>`.',
      ),
    input: inputSchema,
    tools: z.array(toolSchema).optional(),
    environment: environmentSpecSchema
      .optional()
      .describe(
        '`"remote"` (a new environment), an environment id, or a config object. May be omitted ' +
          "with `previous_interaction_id`, which continues in that interaction's environment.",
      ),
    previous_interaction_id: z
      .string()
      .optional()
      .describe('Continues that conversation, in its environment.'),
    stream: z
      .boolean()
      .optional()
      .describe('Answer with server-sent events of the steps as they happen.'),
    system_instruction: z.string().optional(),
  })
  .describe('POST /v1beta/interactions');

/** What a client sends (before defaults). */
export type InteractionRequest = z.input<typeof interactionRequestSchema>;
export type InputItem = z.output<typeof inputItemSchema>;
export type EnvironmentConfig = z.output<typeof environmentConfigSchema>;

// ---------------------------------------------------------------------------------------------
// Interaction

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
  result: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .describe(
      "The tool's result object as the model is shown it (after controller hooks' presentation rewrites); for a blocked call, the deny reason; for a call refused before the gates, why.",
    ),
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

export const codeExecutionResultStepSchema = z
  .object({ type: z.literal('code_execution_result'), ...resultFields })
  .describe('What a `code_execution` call came to.');

export const toolCallStepSchema = z
  .object({
    type: z.literal('tool_call'),
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    original_arguments: originalArguments,
    hooks: z.array(hookOutcomeSchema).describe('The pre_tool_execution hook runs.'),
  })
  .describe('A call of a file tool.');

export const toolResultStepSchema = z
  .object({ type: z.literal('tool_result'), name: z.string(), ...resultFields })
  .describe('What a file tool call came to.');

export const stepSchema = z.discriminatedUnion('type', [
  userInputStepSchema,
  modelOutputStepSchema,
  codeExecutionCallStepSchema,
  codeExecutionResultStepSchema,
  toolCallStepSchema,
  toolResultStepSchema,
]);

export const INTERACTION_STATUSES = [
  'in_progress',
  'completed',
  'failed',
  'requires_action',
] as const;

export const pendingApprovalSchema = z
  .object({
    call_id: z.string(),
    tool_call: z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
    hooks: z
      .array(
        z.object({
          group: z.string(),
          handler: z.string(),
          reason: z.string().nullable(),
          force: z.boolean(),
        }),
      )
      .describe('The hooks that answered `ask`.'),
    reason: z.string(),
    status: z.enum(['pending', 'approved', 'denied', 'expired']),
    expires_at: z.string().describe('Unanswered by then, it counts as denied.'),
  })
  .describe('A call waiting for an approver (status `requires_action`).');

export const interactionSchema = z
  .object({
    id: z.string(),
    object: z.literal('interaction'),
    status: z.enum(INTERACTION_STATUSES),
    agent: z.string(),
    environment_id: z.string(),
    previous_interaction_id: z.string().optional(),
    steps: z.array(stepSchema),
    output_text: z
      .string()
      .describe('The text of the model_output steps after the last tool step ("" if none).'),
    created: z.string().describe('ISO 8601 time.'),
    updated: z.string().describe('ISO 8601 time.'),
    error: z
      .object({ code: z.string(), message: z.string() })
      .optional()
      .describe('Why the interaction failed (status "failed").'),
    pending_approvals: z
      .array(pendingApprovalSchema)
      .optional()
      .describe(
        'Status `requires_action`: the calls waiting for an approver; continue with `previous_interaction_id` and `{"type": "approval", "call_id", "approve"}` items.',
      ),
  })
  .describe('An interaction: its steps, in order, and the environment it ran in.');

export type HookOutcomeRecord = z.output<typeof hookOutcomeSchema>;
export type Step = z.output<typeof stepSchema>;
export type CallStep =
  z.output<typeof codeExecutionCallStepSchema> | z.output<typeof toolCallStepSchema>;
export type ResultStep =
  z.output<typeof codeExecutionResultStepSchema> | z.output<typeof toolResultStepSchema>;
export type Interaction = z.output<typeof interactionSchema>;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

// ---------------------------------------------------------------------------------------------
// Streaming events (stream: true)

export const interactionEventSchema = z.discriminatedUnion('event_type', [
  z
    .object({ event_type: z.literal('interaction.created'), interaction: interactionSchema })
    .describe('First event: the interaction exists (status in_progress), with its environment.'),
  z
    .object({ event_type: z.literal('step'), index: z.number().int(), step: stepSchema })
    .describe('One step, when it has happened.'),
  z
    .object({
      event_type: z.literal('code_execution_output'),
      call_id: z.string(),
      stream: z.enum(['stdout', 'stderr']),
      chunk: z.string(),
    })
    .describe(
      'Output of a running code_execution, as it comes (docs/environments.md, "Live output"); the result step still holds all of it.',
    ),
  z
    .object({ event_type: z.literal('interaction.complete'), interaction: interactionSchema })
    .describe('Last event: the final Interaction (status completed or failed).'),
  z
    .object({
      event_type: z.literal('error'),
      error: z.object({ code: z.string(), message: z.string() }),
    })
    .describe('The stream broke off (the interaction may still be read with GET).'),
]);

export type InteractionEvent = z.output<typeof interactionEventSchema>;

// ---------------------------------------------------------------------------------------------
// Environments and errors

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

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z
        .string()
        .describe(
          'hookbox error code: `invalid_argument`, `invalid_sources`, `not_found`, `unauthenticated`, …',
        ),
      message: z.string().describe('What is wrong; starts with the field at fault.'),
      status: z.number().int().describe('The HTTP status.'),
      details: z
        .object({ field: z.string().optional() })
        .catchall(z.unknown())
        .describe('`field`: the JSON path (or header) at fault.'),
    }),
  })
  .describe('Every 4xx and 5xx answer.');

export type ErrorBody = z.output<typeof errorBodySchema>;
