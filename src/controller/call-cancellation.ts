/**
 * A call cancelled by its caller (`CallOptions.signal`; over MCP, `notifications/cancelled`): the
 * tool's processes are killed (docs/mcp.md, "Progress and cancellation").
 */
import type { Sandbox } from '../sandbox/sandbox.js';

/** How often the kill is repeated while the cancelled call has not ended. */
const KILL_EVERY_MS = 500;

/** How long one kill request may take. */
const KILL_ANSWER_MS = 10_000;

/**
 * Once `signal` aborts, kills every process of the tool user, and again every
 * {@link KILL_EVERY_MS} until the call ends: a call cancelled while its gates still run is killed
 * as soon as its tool starts. Hooks are not killed: they run as another user, and their answers and
 * the call's outcome are recorded as usual. `done()` resolves once every kill sent is answered: the
 * environment's next call (and the processes prestarted for it) starts only after, so a kill meant
 * for this call never reaches the next one.
 */
export function cancellationOf(
  sandbox: Pick<Sandbox, 'request'>,
  signal: AbortSignal,
): { done(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  const sent: Promise<unknown>[] = [];
  const kill = () => {
    sent.push(sandbox.request('kill_tool_processes', {}, KILL_ANSWER_MS).catch(() => {}));
  };
  const onAbort = () => {
    kill();
    timer = setInterval(kill, KILL_EVERY_MS);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    async done() {
      signal.removeEventListener('abort', onAbort);
      if (timer) clearInterval(timer);
      await Promise.all(sent);
    },
  };
}
