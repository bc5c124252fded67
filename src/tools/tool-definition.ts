import type { z } from 'zod';
import type { AnyAgentRequest } from '../sandbox/protocol/index.js';
import type { ToolResult } from './types.js';

/** Per-environment settings a tool runs under. */
export interface ToolRunSettings {
  timeoutMs: number;
  outputCapBytes: number;
  backgroundProcesses: boolean;
  /** Variables for the code tool code runs (docs/environments.md, "Environment variables"). */
  env?: Readonly<Record<string, string>>;
}

/**
 * What a tool asks the sandbox agent to do: one request over the agent's stream, of one of the
 * protocol's operations (docs/agent-protocol.md).
 */
export type AgentRequest = Extract<
  AnyAgentRequest,
  { op: 'run_code' | 'file' | 'file_2026_09' }
> & {
  /** How long the agent may take to answer, beyond which the agent is considered lost. */
  answerTimeoutMs: number;
};

/**
 * One built-in tool: its name, argument schema, how it runs in the sandbox, and how its result reads.
 * Each vocabulary (docs/contract.md §5) is a list of these, so a tool lives in one place.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
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
  request(args: Args, settings: ToolRunSettings): AgentRequest;
  /** Shapes the agent's answer into the tool's documented result. */
  result(answer: Record<string, unknown>): ToolResult;
  /** The post payload's `error` text, or undefined when the call succeeded (docs/contract.md §6). */
  errorOf(result: ToolResult): string | undefined;
}
