import { createInterface } from 'node:readline';
import { SystemError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type { AttachedStdio } from './container-client.js';

/** An event the agent sends for a request before its answer (docs/environments.md, "Live output"). */
export interface AgentEvent {
  event: string;
  [key: string]: unknown;
}

interface Pending {
  onEvent?: (event: AgentEvent) => void;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The controller's end of the one long-lived stream to a sandbox agent: newline-framed JSON requests
 * and answers matched by id, so many requests can be in flight. No `docker exec` per call.
 */
export class AgentConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private lostReason: string | undefined;

  constructor(
    private readonly stdio: AttachedStdio,
    private readonly logger: Logger,
    private readonly containerId: string,
  ) {
    const lines = createInterface({ input: stdio.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => this.onLine(line));
    lines.on('close', () => this.lose('the sandbox agent closed its stream'));
    const errors = createInterface({ input: stdio.stderr, crlfDelay: Infinity });
    errors.on('line', (line) => this.logger.debug({ containerId, line }, 'sandbox agent'));
    // A controller that died mid-write may have left half a line in the agent's stdin.
    stdio.stdin.write('\n');
  }

  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * Sends one request. `timeoutMs` bounds the wait for the answer: the agent enforces the tool's own
   * timeout, this one only catches an agent that stopped answering.
   */
  request<T>(
    op: string,
    body: Record<string, unknown>,
    timeoutMs?: number,
    onEvent?: (event: AgentEvent) => void,
  ): Promise<T> {
    if (this.lostReason !== undefined) {
      return Promise.reject(
        new SystemError('sandbox_agent_lost', this.lostReason, { retryable: false }),
      );
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(
                new SystemError(
                  'timeout',
                  `the sandbox agent did not answer ${op} within ${timeoutMs} ms`,
                  {
                    details: { containerId: this.containerId },
                  },
                ),
              );
            }, timeoutMs);
      this.pending.set(id, {
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
        ...(onEvent ? { onEvent } : {}),
      });
      this.stdio.stdin.write(JSON.stringify({ id, op, ...body }) + '\n');
    });
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let message: { id?: number; ok?: boolean; result?: unknown; error?: string; event?: string };
    try {
      message = JSON.parse(line);
    } catch {
      this.logger.warn(
        { containerId: this.containerId, line: line.slice(0, 200) },
        'unparseable line from sandbox agent',
      );
      return;
    }
    const pending = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!pending) return;
    if (typeof message.event === 'string') {
      // Not the answer: an event of the request while it runs.
      try {
        pending.onEvent?.(message as AgentEvent);
      } catch (error) {
        this.logger.warn({ error: (error as Error).message }, 'agent event listener failed');
      }
      return;
    }
    this.pending.delete(message.id as number);
    if (pending.timer) clearTimeout(pending.timer);
    if (message.ok) pending.resolve(message.result);
    else
      pending.reject(
        new SystemError('sandbox_failed', `sandbox agent: ${message.error ?? 'unknown error'}`),
      );
  }

  /** Marks the stream dead and fails every request in flight with the reason. */
  lose(reason: string): void {
    if (this.lostReason !== undefined) return;
    this.lostReason = reason;
    for (const [id, pending] of this.pending) {
      if (pending.timer) clearTimeout(pending.timer);
      pending.reject(new SystemError('sandbox_agent_lost', reason));
      this.pending.delete(id);
    }
  }

  close(): void {
    this.lose('the connection to the sandbox agent was closed');
    this.stdio.close();
  }
}
