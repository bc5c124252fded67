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
  if (typeof request.body.language === 'string') ran.language = request.body.language;
  const live = liveOutputOf(request.op, callId, options);
  const answer = await sandbox.request<Record<string, unknown>>(
    request.op,
    withToolEnv(
      request.op,
      live ? { ...request.body, stream_output: true } : request.body,
      settings.env,
    ),
    request.answerTimeoutMs,
    live,
  );
  return tool.result(answer);
}
