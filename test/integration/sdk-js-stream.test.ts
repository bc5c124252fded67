// The JavaScript SDK's stream reader over hookbox's events, a background run followed with
// get(id, {stream: true}), and ask with the approval item as the next input.
import { describe, expect, it } from 'vitest';
import { useServer } from './api-helpers.js';
import { jsClient } from './sdk-helpers.js';

const server = useServer();

describe('the JavaScript SDK streams', () => {
  it('create({stream: true}): typed events, live output as deltas; resumes after an event', async () => {
    const ai = jsClient(server());
    const stream = await ai.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'code_execution_call',
          id: 'c1',
          arguments: { code: 'echo one; sleep 0.3; echo two', language: 'bash' },
        },
      ],
      tools: [{ type: 'code_execution' }],
      environment: 'remote',
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.event_type);
    expect(types[0]).toBe('interaction.created');
    expect(types.at(-1)).toBe('interaction.completed');
    expect(types).toContain('interaction.status_update');
    const deltas = events.flatMap((event) =>
      event.event_type === 'step.delta' && event.delta.type === 'code_execution_result'
        ? [event.delta.result]
        : [],
    );
    expect(deltas.join('')).toBe('one\ntwo\n');
    const id = (events[0] as { interaction: { id: string } }).interaction.id;
    const resumed = [];
    for await (const event of await ai.interactions.get(id, {
      stream: true,
      last_event_id: events[1]!.event_id!,
    }))
      resumed.push(event.event_id);
    expect(resumed).toEqual(events.slice(2).map((event) => event.event_id));
  });

  it('background: get(id, {stream: true}) follows it to the end', async () => {
    const ai = jsClient(server());
    const started = await ai.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'code_execution_call',
          id: 'c1',
          arguments: { code: 'sleep 1; echo done', language: 'bash' },
        },
      ],
      tools: [{ type: 'code_execution' }],
      environment: 'remote',
      background: true,
    });
    expect(started.status).toBe('in_progress');
    const events = [];
    for await (const event of await ai.interactions.get(started.id, { stream: true }))
      events.push(event);
    const last = events.at(-1)!;
    expect(last.event_type).toBe('interaction.completed');
    const final = await ai.interactions.get(started.id);
    expect(final.status).toBe('completed');
    expect(final.steps.at(-1)).toMatchObject({ result: 'done\n' });
  });

  it('ask: requires_action, then the approval item as the next input', async () => {
    const ai = jsClient(server());
    const waiting = await ai.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'code_execution_call',
          id: 'c1',
          arguments: { code: 'echo approved', language: 'bash' },
        },
      ],
      tools: [{ type: 'code_execution' }],
      environment: {
        type: 'remote',
        sources: [
          {
            type: 'inline',
            target: '.agents/hooks.json',
            content:
              '{"asker": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "echo \'{\\"decision\\": \\"ask\\", \\"reason\\": \\"look\\"}\'"}]}]}}',
          },
        ],
      },
    });
    expect(waiting.status).toBe('requires_action');
    const callId = (waiting as unknown as { pending_approvals: { call_id: string }[] })
      .pending_approvals[0]!.call_id;
    const answered = await ai.interactions.create({
      agent: 'scripted',
      previous_interaction_id: waiting.id,
      // hookbox's approval item; the SDK passes it through.
      input: [{ type: 'approval', call_id: callId, approve: true }] as never,
    });
    expect(answered.status).toBe('completed');
    expect(answered.steps.at(-1)).toMatchObject({ call_id: callId, result: 'approved\n' });
  });
});
