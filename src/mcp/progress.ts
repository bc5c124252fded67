/** A long call's live output as MCP progress notifications (docs/mcp.md, "Progress and cancellation"). */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Live-output listeners for a call whose request carries a progress token, else none: each chunk
 * of stdout or stderr is one notification whose `message` is the chunk and whose `progress` is
 * the characters sent so far (it only grows, as MCP requires; there is no `total`).
 */
export function progressOf(extra: RequestExtra): {
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
} {
  const token = extra._meta?.progressToken;
  if (token === undefined) return {};
  let sent = 0;
  const tell = (stream: 'stdout' | 'stderr') => (chunk: string) => {
    sent += chunk.length;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: sent,
          message: chunk,
          _meta: { 'hookbox.dev/stream': stream },
        },
      })
      // A client gone mid-call loses its progress, not the call.
      .catch(() => {});
  };
  return { onStdout: tell('stdout'), onStderr: tell('stderr') };
}
