/**
 * One tool call on its way through an environment: made once when the call starts, and handed
 * explicitly from the call pipeline to the hook engine, the handler executor and the tool run, so
 * nothing of one call waits on a shared object for the next (docs/gates.md, "One request per gated
 * call").
 */
import type { HookHandler } from '../config/hooks-config.js';
import type { AgentAnswerOf, AgentRequestOf } from '../sandbox/protocol/index.js';
import type { ToolCall } from '../tools/types.js';

/** The call's code, sent with its one pre hook: the agent runs it if the hook plainly allows. */
export interface RunAhead {
  handler: HookHandler;
  body: AgentRequestOf<'run_code'>;
  answerTimeoutMs: number;
}

/** What hooks of a call are told about it (their env and payload), and its run-ahead slot. */
export interface HookCallContext {
  readonly environmentId: string;
  readonly callId: string;
  readonly toolName: string;
  readonly stateDir: string;
  /** Code to send with the one matching pre hook; the executor takes it (at most once). */
  runAhead?: RunAhead;
  /** What the agent answered for that code, or why it could not run it. */
  ranAhead?: AgentAnswerOf<'run_code'> | Error;
}

/** One tool call, from its start to its outcome. */
export interface CallContext extends HookCallContext {
  /** The call as the caller sent it. */
  readonly call: ToolCall;
  /** When the call started (ms since the epoch). */
  readonly startedAtMs: number;
  /** The tool's name as it runs (a controller hook may have rewritten the call). */
  toolName: string;
  /** The language of the code the tool ran, for the next call's prestart guesses. */
  language?: string;
}

/** A new call's context; `callId` is the one its prestarted hooks were given, if any. */
export function newCallContext(options: {
  environmentId: string;
  callId: string;
  call: ToolCall;
  stateDir: string;
}): CallContext {
  return {
    environmentId: options.environmentId,
    callId: options.callId,
    call: options.call,
    toolName: options.call.name,
    stateDir: options.stateDir,
    startedAtMs: Date.now(),
  };
}

/**
 * Takes the answer of the code run with the call's pre hook, if it ran; a failure to run it is
 * thrown. The slot is emptied either way.
 */
export function takeRanAhead(context: HookCallContext): AgentAnswerOf<'run_code'> | undefined {
  const ran = context.ranAhead;
  context.runAhead = undefined;
  context.ranAhead = undefined;
  if (ran instanceof Error) throw ran;
  return ran;
}
