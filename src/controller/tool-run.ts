/** Runs a call's tool in the sandbox: its request, with live output and the tool env, and its result. */
import type { AgentEvent } from '../sandbox/agent-connection.js';
import type { AgentAnswerOf, AgentOp, AgentRequestOf } from '../sandbox/protocol/index.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ToolDefinition, ToolRunSettings } from '../tools/tool-definition.js';
import type { ToolResult } from '../tools/types.js';
import type { CallOptions } from './call-outcome.js';
import { liveOutputOf } from './live-output.js';
import { withToolEnv } from './tool-env.js';

/** What a call ran, noted for the next call's prestart: the code language, when the tool had one. */
export interface ToolNote {
  language?: string;
}

/** A tool's request to the sandbox agent, as it will be sent. */
export interface ToolRequest {
  tool: ToolDefinition;
  op: AgentOp;
  body: AgentRequestOf<AgentOp>;
  answerTimeoutMs: number;
  /** Where live output goes, when the caller asked for it. */
  live: ((event: AgentEvent) => void) | undefined;
}

/** The request a tool's call sends: live output and the tool env applied. */
export function toolRequestOf(
  settings: ToolRunSettings,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  callId: string,
  options: CallOptions,
): ToolRequest {
  const request = tool.request(args, settings);
  const live = liveOutputOf(request.op, callId, options);
  const body = withToolEnv(
    request.op,
    live ? { ...request.body, stream_output: true } : request.body,
    settings.env,
  ) as AgentRequestOf<AgentOp>;
  return { tool, op: request.op, body, answerTimeoutMs: request.answerTimeoutMs, live };
}

/**
 * Sends the tool's request to the sandbox and reads its result; the code language goes in `ran`.
 * `ranAhead` is the answer of code the agent already ran in its gate's request (docs/gates.md, "One
 * request per gated call"): then nothing is sent.
 */
export async function runTool(
  sandbox: Sandbox,
  request: ToolRequest,
  ran: ToolNote,
  ranAhead?: AgentAnswerOf<'run_code'>,
): Promise<ToolResult> {
  if (request.op === 'run_code')
    ran.language = (request.body as AgentRequestOf<'run_code'>).language;
  // The request and its answer are checked against the protocol (docs/agent-protocol.md).
  const answer =
    ranAhead ??
    (await sandbox.request(request.op, request.body, request.answerTimeoutMs, request.live));
  return request.tool.result(answer);
}
