/** Client cancellation of a call (MCP `notifications/cancelled`): the tool's processes are killed. */
import type { Environment } from '../controller/environment.js';

/** How often the kill is repeated while the cancelled call has not ended. */
const KILL_EVERY_MS = 500;

/** How long one kill request may take. */
const KILL_ANSWER_MS = 10_000;

/**
 * Once `signal` aborts, kills every process of the tool user, and again every
 * {@link KILL_EVERY_MS} until the call ends: a call cancelled while its gates still run is killed
 * as soon as its tool starts (docs/mcp.md, "Progress and cancellation"). Hooks are not killed: they
 * run as another user, and their answers and the call's outcome are recorded as usual.
 */
export function cancellationOf(environment: Environment, signal: AbortSignal): { done(): void } {
  let timer: NodeJS.Timeout | undefined;
  const kill = () => {
    void environment.sandbox.request('kill_tool_processes', {}, KILL_ANSWER_MS).catch(() => {});
  };
  const onAbort = () => {
    kill();
    timer = setInterval(kill, KILL_EVERY_MS);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    done() {
      signal.removeEventListener('abort', onAbort);
      if (timer) clearInterval(timer);
    },
  };
}
