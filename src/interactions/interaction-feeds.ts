/**
 * The SDK events of interactions (docs/gemini-sdks.md, "Streaming"), kept so a stream can be
 * followed from another request (`GET …?stream=true`) and resumed after an `event_id`: while an
 * interaction runs, and for the last {@link DEFAULT_KEPT_FEEDS} that ended.
 */
import { UserError } from '../errors/index.js';
import type { FeedEvent } from './sdk-events.js';

/** How many ended interactions keep their events. @default 32 */
export const DEFAULT_KEPT_FEEDS = 32;

const isLast = (event: FeedEvent) =>
  event.event_type === 'interaction.completed' || event.event_type === 'error';

/** One interaction's events, in order, and who follows them. */
export class Feed {
  readonly events: FeedEvent[] = [];
  private readonly followers = new Set<(event: FeedEvent) => void>();
  ended = false;

  push(event: FeedEvent): void {
    if (this.ended) return;
    this.events.push(event);
    if (isLast(event)) this.ended = true;
    for (const follower of this.followers) follower(event);
    if (this.ended) this.followers.clear();
  }

  /**
   * The events after `lastEventId` (all of them without one), then each new one, until the last.
   * An id this feed never gave is a 400 naming `last_event_id`.
   */
  async *follow(lastEventId?: string): AsyncGenerator<FeedEvent> {
    let from = 0;
    if (lastEventId !== undefined) {
      const at = this.events.findIndex((event) => event.event_id === lastEventId);
      if (at < 0)
        throw new UserError(
          'invalid_argument',
          `last_event_id: ${JSON.stringify(lastEventId)} is not an event of this interaction's stream`,
          { details: { field: 'last_event_id' } },
        );
      from = at + 1;
    }
    const queue: FeedEvent[] = this.events.slice(from);
    let wake: (() => void) | undefined;
    const follower = (event: FeedEvent) => {
      queue.push(event);
      wake?.();
    };
    if (!this.ended) this.followers.add(follower);
    try {
      for (;;) {
        const event = queue.shift();
        if (event) {
          yield event;
          if (isLast(event)) return;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      this.followers.delete(follower);
    }
  }
}

/** The feeds of running interactions, and of the last few that ended. */
export class InteractionFeeds {
  private readonly feeds = new Map<string, Feed>();
  private readonly ended: string[] = [];

  constructor(private readonly kept = DEFAULT_KEPT_FEEDS) {}

  open(id: string): Feed {
    const feed = new Feed();
    this.feeds.set(id, feed);
    return feed;
  }

  get(id: string): Feed | undefined {
    return this.feeds.get(id);
  }

  /** The interaction ended: its feed is kept among the last few. */
  close(id: string): void {
    this.ended.push(id);
    while (this.ended.length > this.kept) this.feeds.delete(this.ended.shift()!);
  }

  /** The interaction is gone (`DELETE`, `store: false`). */
  drop(id: string): void {
    this.feeds.delete(id);
  }
}
