/** Runs a call's tool in the sandbox: its request, with live output and the tool env, and its result. */
import type { AgentEvent } from '../sandbox/agent-connection.js';
import type { AgentAnswerOf, AgentRequestOf } from '../sandbox/protocol/index.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type {
  AnyToolDefinition,
  ToolDefinition,
  ToolRunSettings,
} from '../tools/tool-definition.js';
import type { BuiltinToolResult, ToolOp } from '../tools/types.js';
import type { CallOptions } from './call-outcome.js';
import { liveOutputOf } from './live-output.js';
import { withToolEnv } from '../tools/tool-env.js';

/** What a call ran, noted for the next call's prestart: the code language, when the tool had one. */
export interface ToolNote {
  language?: string;
}

/** A request of one operation, with the tool that reads its answer. */
interface RequestOn<Op extends ToolOp> {
  tool: ToolDefinition<Record<string, unknown>, Op>;
  op: Op;
  body: AgentRequestOf<Op>;
  answerTimeoutMs: number;
  /** Where live output goes, when the caller asked for it. */
  live: ((event: AgentEvent) => void) | undefined;
}

/**
 * A tool's request to the sandbox agent, as it will be sent: the operation tells which tool reads the
 * answer, so the answer reaches the tool typed as its operation's.
 */
export type ToolRequest = { [Op in ToolOp]: RequestOn<Op> }[ToolOp];

/** The request a tool's call sends: live output and the tool env applied (to code, which has them). */
export function toolRequestOf(
  settings: ToolRunSettings,
  tool: AnyToolDefinition,
  args: Record<string, unknown>,
  callId: string,
  options: CallOptions,
): ToolRequest {
  switch (tool.op) {
    case 'run_code': {
      const request = tool.request(args, settings);
      const live = liveOutputOf(request.op, callId, options);
      const body = withToolEnv(
        live ? { ...request.body, stream_output: true } : request.body,
        settings.env,
      );
      return { tool, op: request.op, body, answerTimeoutMs: request.answerTimeoutMs, live };
    }
    case 'file':
      return { tool, ...tool.request(args, settings), live: undefined };
    case 'file_2026_09':
      return { tool, ...tool.request(args, settings), live: undefined };
  }
}

/**
 * Sends the tool's request to the sandbox and reads its result; the code language goes in `ran`.
 * `ranAhead` is the answer of code the agent already ran in its gate's request (docs/gates.md, "One
 * request per gated call"): then nothing is sent. The request and its answer are checked against
 * the protocol (docs/agent-protocol.md), so the tool reads an answer of its operation's shape.
 */
export async function runTool(
  sandbox: Sandbox,
  request: ToolRequest,
  ran: ToolNote,
  ranAhead?: AgentAnswerOf<'run_code'>,
): Promise<BuiltinToolResult> {
  const { answerTimeoutMs, live } = request;
  switch (request.op) {
    case 'run_code': {
      ran.language = request.body.language;
      const answer =
        ranAhead ?? (await sandbox.request('run_code', request.body, answerTimeoutMs, live));
      return request.tool.result(answer);
    }
    case 'file':
      return request.tool.result(
        await sandbox.request('file', request.body, answerTimeoutMs, live),
      );
    case 'file_2026_09':
      return request.tool.result(
        await sandbox.request('file_2026_09', request.body, answerTimeoutMs, live),
      );
  }
}
