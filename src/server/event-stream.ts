import type { ServerResponse } from 'node:http';
import type { FeedEvent } from '../interactions/sdk-events.js';
import type { Interaction } from '../interactions/schema.js';

/** A streaming client may leave this much unread before its stream is dropped. @default 8 MiB */
export const DEFAULT_STREAM_BUFFER_BYTES = 8 * 1024 * 1024;

/** A client that reads nothing of the final event for this long loses its stream. @default 30 s */
export const DEFAULT_STREAM_STALL_MS = 30_000;

/** The answer head of every server-sent event stream (interactions, the console's live feed). */
export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // Proxies such as nginx would otherwise buffer the stream and deliver it late.
  'x-accel-buffering': 'no',
} as const;

/**
 * One interaction's server-sent events, honouring backpressure (docs/tenants.md, "Output and
 * memory"): what the client has not read stays in its socket's buffer only up to `bufferBytes`;
 * past that, the client's stream is dropped — the interaction goes on and is stored, and
 * `GET /v1beta/interactions/{id}` finds it. A slow client therefore costs the server a bounded
 * buffer, never memory that grows with the output, and never pauses the interaction.
 */
export class EventStream {
  private dropped = false;

  constructor(
    private readonly raw: ServerResponse,
    private readonly onDrop: (reason: string) => void,
    private readonly bufferBytes = DEFAULT_STREAM_BUFFER_BYTES,
    private readonly stallMs = DEFAULT_STREAM_STALL_MS,
  ) {}

  private get open(): boolean {
    return !this.dropped && !this.raw.destroyed && !this.raw.writableEnded;
  }

  private drop(reason: string): void {
    if (this.dropped) return;
    this.dropped = true;
    this.onDrop(reason);
    this.raw.destroy();
  }

  /** Writes a piece unless the client has left too much unread (then drops the stream). */
  private write(piece: string): boolean {
    if (!this.open) return false;
    if (this.raw.writableLength > this.bufferBytes) {
      this.drop(`the client left more than ${this.bufferBytes} bytes unread`);
      return false;
    }
    this.raw.write(piece);
    return true;
  }

  /** Waits until the client has read enough to go on; drops the stream if it stalls. */
  private async room(): Promise<boolean> {
    if (!this.open) return false;
    if (this.raw.writableLength <= this.bufferBytes / 2) return true;
    const drained = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), this.stallMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.raw.off('drain', onDrain);
        this.raw.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      this.raw.on('drain', onDrain);
      this.raw.on('close', onClose);
    });
    if (!drained) this.drop(`the client read nothing for ${this.stallMs} ms`);
    return drained && this.open;
  }

  /** One event, whole (steps and the start: each is at most one tool call's output). */
  send(event: Exclude<FeedEvent, { event_type: 'interaction.completed' }>): void {
    this.write(`event: ${event.event_type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  /**
   * The final event, written a step at a time as the client reads it, so an interaction of large
   * outputs is never serialized whole in memory.
   */
  async complete(interaction: Interaction, eventId: string): Promise<void> {
    const { steps, ...head } = interaction;
    const open = JSON.stringify({
      event_type: 'interaction.completed',
      event_id: eventId,
      interaction: head,
    });
    // `{"event_type":…,"interaction":{…head…}}`: the steps go in before the two closing braces.
    const prefix = `${open.slice(0, -2)}${Object.keys(head).length > 0 ? ',' : ''}"steps":[`;
    if (!this.write(`event: interaction.completed\ndata: ${prefix}`)) return;
    for (let index = 0; index < steps.length; index++) {
      if (!(await this.room())) return;
      if (!this.write((index > 0 ? ',' : '') + JSON.stringify(steps[index]))) return;
    }
    this.write(']}}\n\n');
  }

  end(): void {
    if (!this.raw.writableEnded && !this.raw.destroyed) this.raw.end();
  }
}
