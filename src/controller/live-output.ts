import type { AgentEvent } from '../sandbox/agent-connection.js';

/**
 * The listener for a tool's agent events that passes its live output on (docs/environments.md,
 * "Live output"), or undefined when the call has no one to tell or the tool runs no code.
 */
export function liveOutputOf(
  op: string,
  callId: string,
  options: {
    onStdout?: (chunk: string, callId: string) => void;
    onStderr?: (chunk: string, callId: string) => void;
  },
): ((event: AgentEvent) => void) | undefined {
  const { onStdout, onStderr } = options;
  if (op !== 'run_code' || (!onStdout && !onStderr)) return undefined;
  return (event) => {
    if (event.event !== 'output' || typeof event.chunk !== 'string') return;
    if (event.stream === 'stdout') onStdout?.(event.chunk, callId);
    else if (event.stream === 'stderr') onStderr?.(event.chunk, callId);
  };
}
