import { z } from 'zod';
import {
  base64,
  codeLanguage,
  count,
  operation,
  positive,
  processEnd,
  variables,
} from './common.js';

/** Limits every process request carries: the agent enforces them, not the controller. */
const limits = {
  /** Kills the whole process group after this long. */
  timeout_ms: positive,
  /** Keeps at most this much of stdout and of stderr. */
  output_cap_bytes: count,
};

export const runCode = operation(
  'Runs tool code as the tool user in /workspace (docs/contract.md §5, code_execution).',
  z.strictObject({
    code: z.string(),
    language: codeLanguage,
    ...limits,
    /** Processes the code starts may outlive the call (docs/environments.md). */
    background_processes: z.boolean().optional(),
    /** `environment.env`: the sandbox's own variables win over these. */
    env: variables.optional(),
    /** Send `output` events while it runs (docs/environments.md, "Live output"). */
    stream_output: z.boolean().optional(),
  }),
  z.strictObject(processEnd),
);

/** Which process answered a command handler (docs/gates.md, "Prestart and workers"). */
export const hookRunner = z.enum(['spawned', 'prestarted', 'worker', 'worker_fallback']);

export const runHook = operation(
  'Runs one command handler as the hook user (or, with run_as tool, the tool user): by its worker, by the process started ahead for it, or spawned (docs/gates.md).',
  z.strictObject({
    command: z.string(),
    /** The event's JSON, base64-encoded. */
    stdin_b64: base64.optional(),
    /** The event's JSON as text (a request that needs no escaping care). */
    stdin: z.string().optional(),
    env: variables.optional(),
    ...limits,
    /** The controller's name for the handler: how its prestarted process or worker is found. */
    key: z.string().optional(),
    /** Counts gate replacements: nothing started for older gates may answer. */
    generation: count.optional(),
    prestart: z.union([z.boolean(), z.literal('auto')]).optional(),
    worker: z.boolean().optional(),
    /**
     * `tool`: run the handler as the tool user, spawned, confined as tool code is (docs/gates.md,
     * "Running workspace code from a hook"). Left out: the hook user.
     */
    run_as: z.enum(['hook', 'tool']).optional(),
    /**
     * The call's code, run in the same request right after the hook when, and only when, the
     * hook's answer is a plain allow (docs/gates.md, "One request per gated call").
     */
    then_run_code: runCode.request.optional(),
  }),
  z.strictObject({
    ...processEnd,
    /** The signal that ended it, if one did. */
    signal: z.number().int().nullable(),
    runner: hookRunner,
    /** Why a prestarted process or worker did not answer when one was expected to. */
    runner_note: z.string().optional(),
    /** The end of `then_run_code`, when it ran. */
    then: runCode.answer.optional(),
    /** Why `then_run_code` failed to run, when it did. */
    then_error: z.string().optional(),
  }),
);

/** One handler whose process the next call may need (src/hooks/prestart-plan.ts). */
const prestartHandler = z.strictObject({
  key: z.string(),
  command: z.string(),
  worker: z.boolean().optional(),
  prestart: z.union([z.boolean(), z.literal('auto')]).optional(),
  env: variables,
});

export const prestartHooks = operation(
  "Starts the next call's processes ahead: its hooks' and tool code's interpreter; kills those no longer wanted (docs/gates.md, \"Prestart and workers\").",
  z.strictObject({
    generation: count,
    handlers: z.array(prestartHandler),
    /** The interpreter to have waiting for the next code_execution call; null: none. */
    code_language: codeLanguage.nullable(),
  }),
  z.strictObject({
    started: count,
    waiting: count,
    workers: count,
    /** Interpreters started (0 or 1), when `code_language` was given. */
    code: count.optional(),
  }),
);

export const httpHook = operation(
  "POSTs one event to an http handler through the environment's egress proxy (docs/gates.md).",
  z.strictObject({
    url: z.string(),
    headers: z.record(z.string(), z.string()).optional(),
    body_b64: base64.optional(),
    body: z.string().optional(),
    /** The egress proxy's URL. */
    proxy: z.string(),
    /** Tells the proxy the request is a hook's, not tool code's. */
    token: z.string(),
    ...limits,
  }),
  z.strictObject({
    /** Always null: an http handler has no exit code. */
    exit_code: z.null(),
    timed_out: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
    truncated: z.boolean(),
    duration_ms: z.number().min(0),
    http_status: z.number().int().optional(),
    /** The POST did not reach the hook server, or the proxy refused it. */
    failure: z.string().optional(),
  }),
);

export const killToolProcesses = operation(
  'Kills every process of the tool user (background processes included).',
  z.strictObject({}),
  z.strictObject({ killed: count }),
);
