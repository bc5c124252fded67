import type { z } from 'zod';
import type { AgentAnswerOf, AgentRequestOf } from '../sandbox/protocol/index.js';
import type { PresentedResult, ToolOp, ToolResultOfOp } from './types.js';

/** Per-environment settings a tool runs under. */
export interface ToolRunSettings {
  timeoutMs: number;
  outputCapBytes: number;
  backgroundProcesses: boolean;
  /** Variables for the code tool code runs (docs/environments.md, "Environment variables"). */
  env?: Readonly<Record<string, string>>;
}

/**
 * What a tool asks the sandbox agent to do: one request over the agent's stream, of the protocol
 * operation the tool runs on (docs/agent-protocol.md).
 */
export interface AgentRequest<Op extends ToolOp = ToolOp> {
  op: Op;
  body: AgentRequestOf<Op>;
  /** How long the agent may take to answer, beyond which the agent is considered lost. */
  answerTimeoutMs: number;
}

/**
 * One built-in tool: its name, argument schema, how it runs in the sandbox, and how its result reads.
 * Each vocabulary (docs/contract.md §5) is a list of these, so a tool lives in one place. `Op` is the
 * agent operation it runs on: its request is that operation's, and its result is read from that
 * operation's answer, already checked against the protocol's schema (src/sandbox/protocol/check.ts).
 */
export interface ToolDefinition<
  Args = Record<string, unknown>,
  Op extends ToolOp = ToolOp,
  Result extends ToolResultOfOp[Op] = ToolResultOfOp[Op],
> {
  name: string;
  /** The agent operation the tool runs on. */
  op: Op;
  /** One sentence for models (function declarations) and `hookbox` docs. */
  description: string;
  /** The arguments accepted: a call whose args fail this is refused before any hook runs. */
  args: z.ZodType<Args>;
  /**
   * The arguments declared to models, when narrower than those accepted (another name accepted for an
   * argument is not advertised). Defaults to `args`.
   */
  modelArgs?: z.ZodType;
  /** The arguments that name a path, for policies that check paths (empty for `code_execution`). */
  pathArgs: readonly string[];
  request(args: Args, settings: ToolRunSettings): AgentRequest<Op>;
  /** Shapes the agent's answer, checked against the protocol, into the tool's documented result. */
  result(answer: AgentAnswerOf<Op>): Result;
  /**
   * The post payload's `error` text, or undefined when the call succeeded (docs/contract.md §6). Read
   * from the raw result, and from what controller hooks made of it (JSON).
   */
  errorOf(result: PresentedResult): string | undefined;
}

/** A tool of any vocabulary, whichever operation it runs on: what a vocabulary lists. */
export type AnyToolDefinition = {
  [Op in ToolOp]: ToolDefinition<Record<string, unknown>, Op>;
}[ToolOp];
