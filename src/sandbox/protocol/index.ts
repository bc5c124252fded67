import { z } from 'zod';
import { codeLanguage, count, operation, type Operation } from './common.js';
import { file, file202609, workspaceFiles } from './files.js';
import { httpHook, killToolProcesses, prestartHooks, runCode, runHook } from './processes.js';
import { replaceAgents, resetAgents, writeSources } from './sources.js';

export { SANDBOX_PATHS } from './paths.js';
export { FILE_2026_09_ANSWERS, FILE_ANSWERS, WORKSPACE_FILES_ANSWERS } from './files.js';

/**
 * The version of the protocol between the controller and the sandbox agent (docs/agent-protocol.md).
 * The agent reads it from the generated sandbox-image/agent/protocol.schema.json and reports it in
 * its `ping` answer; the controller refuses an agent of any other version on connect. Raise it with
 * every change to a request or an answer.
 */
export const PROTOCOL_VERSION = 3;

const ping = operation(
  'Answers at once: the agent is up, and speaks this protocol version.',
  z.strictObject({}),
  z.strictObject({
    protocol: z.number().int(),
    pid: count,
    time: z.number(),
    /**
     * Random per agent start: the controller checks that the agent it reaches on the channel
     * socket is the one it reaches on the container's stdio (docs/agent-protocol.md, "The stream").
     */
    instance: z.string().optional(),
  }),
);

/** A language tool code runs in. */
export type CodeLanguage = z.output<typeof codeLanguage>;

/** Every operation, by the name the request's `op` carries. */
export const OPERATIONS = {
  ping,
  run_code: runCode,
  run_hook: runHook,
  prestart_hooks: prestartHooks,
  http_hook: httpHook,
  kill_tool_processes: killToolProcesses,
  file,
  file_2026_09: file202609,
  workspace_files: workspaceFiles,
  write_sources: writeSources,
  replace_agents: replaceAgents,
  reset_agents: resetAgents,
} satisfies Record<string, Operation>;

export type AgentOp = keyof typeof OPERATIONS;
/** What the controller sends for `Op` (without the envelope's `id` and `op`). */
export type AgentRequestOf<Op extends AgentOp> = z.input<(typeof OPERATIONS)[Op]['request']>;
/** What the agent answers to `Op`, once checked. */
export type AgentAnswerOf<Op extends AgentOp> = z.output<(typeof OPERATIONS)[Op]['answer']>;

/**
 * An event the agent sends for a request before its answer (docs/environments.md, "Live output"):
 * a chunk of the output of the command it runs.
 */
export const outputEvent = z.strictObject({
  id: z.number().int(),
  event: z.literal('output'),
  stream: z.enum(['stdout', 'stderr']),
  chunk: z.string(),
});
export type AgentEvent = z.output<typeof outputEvent>;

/** A line the controller writes: the operation's request with the envelope's `id` and `op`. */
export const requestEnvelope = z.looseObject({ id: z.number().int(), op: z.string() });

/**
 * A line the agent writes in answer: `result` when the request was carried out, else `error` (the
 * agent's own failure: an exception, a request it could not read). `id` is null when the agent
 * could not read the request's id.
 */
export const answerEnvelope = z.union([
  z.strictObject({ id: z.number().int().nullable(), ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ id: z.number().int().nullable(), ok: z.literal(false), error: z.string() }),
]);
