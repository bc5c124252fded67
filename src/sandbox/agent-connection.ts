import { randomInt } from 'node:crypto';
import { createInterface } from 'node:readline';
import { SystemError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type { AttachedStdio } from './container-client.js';

/**
 * The longest request line the sandbox agent reads (sandbox-image/agent/main.py, MAX_REQUEST_BYTES).
 * A longer request is refused here, before it is sent; large text travels base64-encoded, so every
 * request within the documented limits stays below it (docs/security.md, "The agent's stream").
 */
export const AGENT_MAX_LINE_BYTES = 64 * 1024 * 1024;
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
  // Random first id: two controller replicas may be attached to one agent at once (Docker sends
  // every attached stream all of the agent's answers), and each must know its own answers
  // (docs/kubernetes.md, Several replicas).
  private nextId = randomInt(1, 2 ** 47);
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
    const line = JSON.stringify({ id, op, ...body }) + '\n';
    const lineBytes = Buffer.byteLength(line);
    if (lineBytes > AGENT_MAX_LINE_BYTES) {
      return Promise.reject(
        new UserError(
          'payload_too_large',
          `${op}: the request to the sandbox agent would be ${lineBytes} bytes, more than its ${AGENT_MAX_LINE_BYTES}; send less at once`,
          { details: { field: op, limit: AGENT_MAX_LINE_BYTES } },
        ),
      );
    }
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
      this.stdio.stdin.write(line);
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
