/** The request schemas of the Interactions API (docs/contract.md §9): input items, tools, environments. Depends on zod only. */
import { z } from 'zod';

const textItemSchema = z
  .strictObject({
    type: z.literal('text'),
    text: z.string(),
    annotations: z.array(z.unknown()).optional().describe('Accepted and ignored.'),
  })
  .describe('Text for the model. Text items together make the interaction\'s "user_input" step.');

const argumentsSchema = z.record(z.string(), z.unknown(), {
  error: 'must be a JSON object of arguments',
});

const callIdSchema = z
  .string()
  .optional()
  .describe(
    'The id the client gave the call; accepted and not reused: hookbox gives every call it runs an id of its own (docs/gemini-sdks.md).',
  );

const signatureSchema = z.string().optional().describe('Accepted and ignored.');

const codeExecutionCallItemSchema = z
  .strictObject({
    type: z.literal('code_execution_call'),
    id: callIdSchema,
    arguments: argumentsSchema.describe('`{code, language}`: the arguments of `code_execution`.'),
    signature: signatureSchema,
  })
  .describe(
    'A `code_execution` call for the `scripted` agent to run, through the gates, in input order.',
  );

const functionCallItemSchema = z
  .strictObject({
    type: z.literal('function_call'),
    id: callIdSchema,
    name: z.string().describe('A built-in tool: `read_file`, `write_file`, `list_files`, …'),
    arguments: argumentsSchema,
    signature: signatureSchema,
  })
  .describe(
    "The SDKs' step for a call of a named tool: for the `scripted` agent to run, in input order.",
  );

const toolCallItemSchema = z
  .strictObject({
    type: z.literal('tool_call'),
    name: z.string().describe('A built-in tool: `read_file`, `write_file`, `list_files`, …'),
    arguments: argumentsSchema,
  })
  .describe('hookbox extension, as `function_call`: a call of any built-in tool.');

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

const functionResultItemSchema = z
  .strictObject({
    type: z.literal('function_result'),
    call_id: z.string().describe('The call waiting for approval (`pending_approvals[].call_id`).'),
    name: z.string().optional(),
    result: z
      .strictObject({
        approve: z.boolean({ error: 'must be true or false' }),
        reason: z.string().optional(),
      })
      .describe('`{"approve": true|false, "reason"?}`'),
    is_error: z.boolean().optional(),
  })
  .describe(
    'The SDK-typed form of an `approval` item (the Python SDK sends only typed steps): answers the pending approval `call_id`. hookbox runs every call itself, so this is the only result a client gives.',
  );

const textPartsSchema = z.array(textItemSchema, {
  error: 'must be an array of text parts ({"type": "text", "text": "…"})',
});

const userInputItemSchema = z
  .strictObject({ type: z.literal('user_input'), content: textPartsSchema.optional() })
  .describe("The SDKs' user turn: its text parts are the interaction's text.");

const modelOutputItemSchema = z
  .strictObject({ type: z.literal('model_output'), content: textPartsSchema.optional() })
  .describe(
    "An earlier model turn, given as history: a model driver is shown it before this turn's text.",
  );

export const INPUT_ITEM_TYPES = [
  'text',
  'user_input',
  'model_output',
  'code_execution_call',
  'function_call',
  'tool_call',
  'approval',
  'function_result',
] as const;

export const inputItemSchema = z.discriminatedUnion(
  'type',
  [
    textItemSchema,
    userInputItemSchema,
    modelOutputItemSchema,
    codeExecutionCallItemSchema,
    functionCallItemSchema,
    toolCallItemSchema,
    approvalItemSchema,
    functionResultItemSchema,
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `must be one of ${INPUT_ITEM_TYPES.map((t) => JSON.stringify(t)).join(', ')} (hookbox's agents take text, not images, audio, video or documents)`
        : undefined,
  },
);

export const inputSchema = z.union([z.string(), z.array(inputItemSchema), textItemSchema], {
  error:
    'must be a string, a text part ({"type": "text", "text": "…"}), or an array of text parts or steps',
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
  credential: z
    .string()
    .optional()
    .describe(
      'A stored credential (`cred_…`, docs/credentials.md) whose headers are added like `transform`; not with `transform`.',
    ),
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
      error:
        'must be "inline" here; a "repository" source is cloned by POST /v1beta/environments, whose id the interaction can name (docs/environments.md, "Repository sources")',
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
    snapshot_id: z
      .string()
      .optional()
      .describe(
        'hookbox extension: a new environment made from this snapshot (its workspace, gates, template, vocabulary, settings and network); nothing else may be given with it (docs/environments.md, "Snapshots and forks").',
      ),
    sources: z.array(inlineSourceSchema).optional(),
    env: z
      .record(
        z.string(),
        z.union([z.string(), z.strictObject({ credential: z.string() })], {
          error: 'must be a string or {"credential": "cred_…"}',
        }),
      )
      .optional()
      .describe(
        'Environment variables for tool code (not hooks), name → value; only when making an environment (docs/environments.md). ' +
          'A value `{"credential": "cred_…"}` is a placeholder: tool code sees an opaque token that only the egress proxy swaps for the value (docs/credentials.md).',
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
    background: z
      .boolean()
      .optional()
      .describe(
        'Answer at once (status `in_progress`) and run on; read it with GET, stop it with `POST /v1beta/interactions/{id}/cancel`.',
      ),
    store: z
      .boolean()
      .optional()
      .describe(
        '`false`: the interaction is not kept once answered (GET and `previous_interaction_id` do not find it); not with `background`. @default true',
      ),
    labels: z
      .record(z.string(), z.string(), { error: 'must be an object of string values' })
      .optional()
      .describe('Names and values of your own, kept on the interaction.'),
  })
  .describe('POST /v1beta/interactions');

/** What a client sends (before defaults). */
export type InteractionRequest = z.input<typeof interactionRequestSchema>;
export type EnvironmentConfig = z.output<typeof environmentConfigSchema>;
