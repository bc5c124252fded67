/** A long call's live output as MCP progress notifications (docs/mcp.md, "Progress and cancellation"). */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A call's progress: live-output listeners, and notes (a wait for approval). */
export interface CallProgress {
  listeners: { onStdout?: (chunk: string) => void; onStderr?: (chunk: string) => void };
  /** Tells the client something about the call, not output (`hookbox.dev/stream` is `hookbox`). */
  note(message: string): void;
}

/**
 * Progress for a call whose request carries a progress token, else none: each chunk of stdout or
 * stderr is one notification whose `message` is the chunk and whose `progress` is the characters
 * sent so far, notes included (it only grows, as MCP requires; there is no `total`).
 */
export function progressOf(extra: RequestExtra): CallProgress {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { listeners: {}, note: () => {} };
  let sent = 0;
  const tell = (stream: 'stdout' | 'stderr' | 'hookbox') => (chunk: string) => {
    // A note may be empty of characters, never of progress: it always moves on.
    sent += Math.max(chunk.length, 1);
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
  return {
    listeners: { onStdout: tell('stdout'), onStderr: tell('stderr') },
    note: tell('hookbox'),
  };
}
