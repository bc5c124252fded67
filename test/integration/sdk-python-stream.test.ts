// The Python SDK's stream reader over hookbox's events: every event typed, live output as deltas,
// and a stream resumed after an event id (`get(id, stream=True, last_event_id=…)`).
import { describe, expect, it } from 'vitest';
import { useServer } from './api-helpers.js';
import { runPythonScenario } from './sdk-helpers.js';

const server = useServer();

describe('the Python SDK streams', () => {
  it('reads every event as a typed one, without a warning, and resumes after an event', async () => {
    const { result, stderr } = await runPythonScenario<{
      events: {
        event_type: string;
        class: string;
        event_id: string;
        /** A `step.delta`'s: the code's output so far, as the SDK read it. */
        delta?: { result?: unknown };
      }[];
      resumed: { event_id: string }[];
    }>(server(), 'stream');
    expect(stderr).toBe('');
    const events = result.events;
    expect(events.every((event) => !event.class.startsWith('Unknown'))).toBe(true);
    expect(events[0]!.event_type).toBe('interaction.created');
    expect(events.at(-1)!.event_type).toBe('interaction.completed');
    expect(new Set(events.map((event) => event.event_id)).size).toBe(events.length);
    const deltas = events
      .filter((event) => event.event_type === 'step.delta')
      .map((event) => String(event.delta?.result));
    expect(deltas.join('')).toBe('one\ntwo\n');
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    // Resumed after the third event: the rest, the same ids.
    expect(result.resumed.map((event) => event.event_id)).toEqual(
      events.slice(3).map((event) => event.event_id),
    );
  });
});
