/**
 * The run's events as the Gemini SDKs' stream events (docs/gemini-sdks.md, "Streaming"): every step
 * a `step.start` … `step.stop` pair, model text and live tool output as `step.delta`s, the status
 * as `interaction.status_update`, each event numbered (`event_id`) so a stream can resume.
 */
import type { InteractionEvent } from './event-schema.js';
import type { RunEvent } from './prepared-interaction.js';
import type { Interaction, Step } from './schema.js';

/** An event to send: the final one's Interaction is written from the interaction itself. */
export type FeedEvent =
  | Exclude<InteractionEvent, { event_type: 'interaction.completed' }>
  | { event_type: 'interaction.completed'; event_id: string };

type Unnumbered<E> = E extends unknown ? Omit<E, 'event_id'> : never;

/** Turns one interaction's run events into numbered SDK events, in order. */
export class SdkEventTranslator {
  private sequence = 0;
  /** Index of the next step to announce. */
  private next = 0;
  /** Calls whose steps were announced early, by live output: call id → result step index. */
  private readonly live = new Map<string, number>();

  constructor(private readonly send: (event: FeedEvent) => void) {}

  private emit(event: Unnumbered<FeedEvent>): void {
    this.sequence += 1;
    this.send({ ...event, event_id: `evt_${this.sequence}` });
  }

  /** The start of an interaction that waits its turn (`background`): created, then queued. */
  created(interaction: Interaction): void {
    this.emit({ event_type: 'interaction.created', interaction: structuredClone(interaction) });
  }

  status(interaction: Interaction): void {
    this.emit({
      event_type: 'interaction.status_update',
      interaction_id: interaction.id,
      status: interaction.status,
      ...(interaction.usage ? { usage: interaction.usage } : {}),
    });
  }

  /** A whole step: model text as a delta, anything else whole. */
  step(index: number, step: Step): void {
    this.next = index + 1;
    if (step.type === 'model_output') {
      this.emit({ event_type: 'step.start', index, step: { type: 'model_output', content: [] } });
      for (const part of step.content)
        this.emit({ event_type: 'step.delta', index, delta: { type: 'text', text: part.text } });
    } else {
      this.emit({ event_type: 'step.start', index, step });
    }
    this.emit({ event_type: 'step.stop', index });
  }

  run(event: RunEvent): void {
    switch (event.event_type) {
      case 'interaction.created':
        this.created(event.interaction);
        return;
      case 'code_execution_output': {
        let index = this.live.get(event.call_id);
        if (index === undefined) {
          // The call's step comes whole when it ends; announced now, so the output has a step.
          const call = this.next;
          index = call + 1;
          this.next = index + 1;
          this.live.set(event.call_id, index);
          this.emit({
            event_type: 'step.start',
            index: call,
            step: {
              type: 'code_execution_call',
              id: event.call_id,
              arguments: event.arguments,
              hooks: [],
            },
          });
          this.emit({ event_type: 'step.stop', index: call });
          this.emit({
            event_type: 'step.start',
            index,
            step: {
              type: 'code_execution_result',
              call_id: event.call_id,
              result: '',
              structured_result: null,
              is_error: false,
              blocked: false,
              hooks: [],
            },
          });
        }
        this.emit({
          event_type: 'step.delta',
          index,
          delta: { type: 'code_execution_result', result: event.chunk, stream: event.stream },
        });
        return;
      }
      case 'step': {
        const { step, index } = event;
        const liveId =
          step.type === 'code_execution_call'
            ? step.id
            : step.type === 'code_execution_result'
              ? step.call_id
              : undefined;
        if (liveId !== undefined && this.live.has(liveId)) {
          // Announced early: the call's step is already stopped; the result's ends now.
          if (step.type === 'code_execution_result') {
            this.emit({ event_type: 'step.stop', index: this.live.get(liveId)! });
            this.live.delete(liveId);
          }
          return;
        }
        this.step(index, step);
        return;
      }
      case 'interaction.complete':
        this.status(event.interaction);
        this.emit({ event_type: 'interaction.completed' });
        return;
    }
  }
}

/**
 * The events of a stored interaction, rebuilt from its steps (no live deltas): what a stream
 * resumed after the server no longer holds the interaction's own events sends.
 */
export function replayEvents(interaction: Interaction): FeedEvent[] {
  const events: FeedEvent[] = [];
  const translator = new SdkEventTranslator((event) => events.push(event));
  translator.created({ ...interaction, status: 'in_progress', steps: [], output_text: '' });
  interaction.steps.forEach((step, index) => translator.step(index, step));
  const finished = !['queued', 'in_progress'].includes(interaction.status);
  if (finished) translator.run({ event_type: 'interaction.complete', interaction });
  return events;
}
