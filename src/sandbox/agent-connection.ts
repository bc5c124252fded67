import { randomInt } from 'node:crypto';
import { createInterface } from 'node:readline';
import { SystemError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import type { AttachedStdio } from './container-runtime.js';
import {
  answerEnvelope,
  outputEvent,
  type AgentAnswerOf,
  type AgentEvent,
  type AgentOp,
  type AgentRequestOf,
} from './protocol/index.js';
import { checkAnswer, checkRequest, checkVersion } from './protocol/check.js';

export type { AgentEvent } from './protocol/index.js';

/**
 * The longest request line the sandbox agent reads (sandbox-image/agent/main.py, MAX_REQUEST_BYTES).
 * A longer request is refused here, before it is sent; large text travels base64-encoded, so every
 * request within the documented limits stays below it (docs/security.md, "The agent's stream").
 */
export const AGENT_MAX_LINE_BYTES = 64 * 1024 * 1024;
interface Pending {
  op: AgentOp;
  onEvent?: (event: AgentEvent) => void;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The controller's end of the one long-lived stream to a sandbox agent: newline-framed JSON requests
 * and answers matched by id, so many requests can be in flight. No `docker exec` per call. Requests
 * and answers are checked against the protocol (src/sandbox/protocol/, docs/agent-protocol.md).
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
    // A socket that breaks (the channel, docs/agent-protocol.md "The stream") reports it here too.
    lines.on('error', (error: Error) =>
      this.lose(`the stream to the sandbox agent failed (${error.message})`),
    );
    const errors = createInterface({ input: stdio.stderr, crlfDelay: Infinity });
    errors.on('line', (line) => this.logger.debug({ containerId, line }, 'sandbox agent'));
    errors.on('error', () => {});
    // A controller that died mid-write may have left half a line in the agent's stdin.
    stdio.stdin.write('\n');
  }

  get lost(): string | undefined {
    return this.lostReason;
  }

  /**
   * The check on connect: the agent answers `ping` with the protocol version it speaks, and any
   * other than this controller's is `sandbox_agent_incompatible`, naming both (checked before the
   * answer's shape, which another version may have changed).
   */
  async handshake(timeoutMs: number, image?: string): Promise<AgentAnswerOf<'ping'>> {
    const answer = await this.send('ping', {}, timeoutMs);
    const reported = (answer as { protocol?: unknown } | null)?.protocol;
    if (typeof reported === 'number') checkVersion(reported, image);
    return checkAnswer('ping', answer);
  }

  /**
   * Sends one request; its answer is checked against the protocol. `timeoutMs` bounds the wait for
   * the answer: the agent enforces the tool's own timeout, this one only catches an agent that
   * stopped answering.
   */
  async request<Op extends AgentOp>(
    op: Op,
    body: AgentRequestOf<Op>,
    timeoutMs?: number,
    onEvent?: (event: AgentEvent) => void,
  ): Promise<AgentAnswerOf<Op>> {
    checkRequest(op, body);
    return checkAnswer(op, await this.send(op, body, timeoutMs, onEvent));
  }

  private send(
    op: AgentOp,
    body: object,
    timeoutMs?: number,
    onEvent?: (event: AgentEvent) => void,
  ): Promise<unknown> {
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
    return new Promise<unknown>((resolve, reject) => {
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
        op,
        resolve,
        reject,
        timer,
        ...(onEvent ? { onEvent } : {}),
      });
      this.stdio.stdin.write(line);
    });
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.logger.warn(
        { containerId: this.containerId, line: line.slice(0, 200) },
        'unparseable line from sandbox agent',
      );
      return;
    }
    const id = (message as { id?: unknown } | null)?.id;
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    // Not ours: another replica's request (docs/kubernetes.md, Several replicas), or one given up.
    if (!pending) return;
    if (typeof (message as { event?: unknown }).event === 'string') {
      // Not the answer: an event of the request while it runs.
      const event = outputEvent.safeParse(message);
      if (!event.success) {
        this.logger.warn(
          { containerId: this.containerId, op: pending.op, line: line.slice(0, 200) },
          'sandbox agent sent an event the protocol does not know; ignored',
        );
        return;
      }
      try {
        pending.onEvent?.(event.data);
      } catch (error) {
        this.logger.warn({ error: (error as Error).message }, 'agent event listener failed');
      }
      return;
    }
    this.pending.delete(id as number);
    if (pending.timer) clearTimeout(pending.timer);
    const envelope = answerEnvelope.safeParse(message);
    if (!envelope.success)
      pending.reject(
        new SystemError(
          'sandbox_protocol_violation',
          `sandbox agent: its answer to ${pending.op} is neither {ok: true, result} nor {ok: false, error}`,
          { retryable: false, details: { operation: pending.op, field: 'ok' } },
        ),
      );
    else if (envelope.data.ok) pending.resolve(envelope.data.result);
    else
      pending.reject(
        new SystemError('sandbox_failed', `sandbox agent: ${envelope.data.error}`, {
          details: { operation: pending.op },
        }),
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
