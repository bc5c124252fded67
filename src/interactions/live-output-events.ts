import type { RunEvent } from './prepared-interaction.js';

/**
 * The `onStdout`/`onStderr` of a call in a streamed interaction: each chunk becomes a
 * `code_execution_output` event (docs/environments.md, "Live output").
 */
export function liveOutputListeners(
  emit: (event: RunEvent) => void,
  args: Record<string, unknown>,
): {
  onStdout: (chunk: string, callId: string) => void;
  onStderr: (chunk: string, callId: string) => void;
} {
  const send = (stream: 'stdout' | 'stderr') => (chunk: string, callId: string) =>
    emit({ event_type: 'code_execution_output', call_id: callId, arguments: args, stream, chunk });
  return { onStdout: send('stdout'), onStderr: send('stderr') };
}
