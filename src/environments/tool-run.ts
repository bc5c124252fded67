/** Runs a call's tool in the sandbox: its request, with live output and the tool env, and its result. */
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

/** Sends the tool's request to the sandbox and reads its result; the code language goes in `ran`. */
export async function runTool(
  sandbox: Sandbox,
  settings: ToolRunSettings,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  callId: string,
  options: CallOptions,
  ran: ToolNote,
): Promise<ToolResult> {
  const request = tool.request(args, settings);
  if (request.op === 'run_code') ran.language = request.body.language;
  const live = liveOutputOf(request.op, callId, options);
  // The request and its answer are checked against the protocol (docs/agent-protocol.md).
  const answer = await sandbox.request(
    request.op,
    withToolEnv(
      request.op,
      live ? { ...request.body, stream_output: true } : request.body,
      settings.env,
    ) as typeof request.body,
    request.answerTimeoutMs,
    live,
  );
  return tool.result(answer);
}
