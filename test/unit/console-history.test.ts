// The console's lists after a restart (docs/console.md, "What it remembers"): an interaction's
// facts (tools, gates, its calls' outcomes) from its steps, and the Activity seeded with stored
// interactions without losing what was observed since start.
import { describe, expect, it } from 'vitest';
import { callsOfInteraction, interactionFacts } from '../../src/interactions/interaction-facts.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { Observers } from '../../src/record/observations.js';
import { Activity } from '../../src/server/console/activity.js';

const hook = (group: string, outcome: 'allow' | 'deny' | 'ask') => ({
  source: 'sandbox' as const,
  group,
  event: 'pre_tool_execution' as const,
  type: 'command',
  handler: 'gate.py',
  outcome,
  reason: outcome === 'allow' ? null : `${group} says ${outcome}`,
  exit_code: 0,
  duration_ms: 3,
});

function interaction(id: string, environment: string, steps: unknown[], extra = {}): Interaction {
  return {
    id,
    object: 'interaction',
    status: 'completed',
    agent: 'scripted',
    environment_id: environment,
    steps,
    output_text: '',
    created: '2026-01-01T00:00:00.000Z',
    updated: `2026-01-01T00:00:0${id.slice(-1)}.000Z`,
    ...extra,
  } as Interaction;
}

const denied = interaction('int_1', 'env_a', [
  {
    type: 'code_execution_call',
    id: 'c1',
    arguments: { code: 'rm -rf /' },
    hooks: [hook('gate', 'deny')],
  },
  {
    type: 'code_execution_result',
    call_id: 'c1',
    is_error: true,
    blocked: true,
    result: 'gate says deny',
    hooks: [],
  },
  { type: 'function_call', id: 'c2', name: 'write_file', arguments: {}, hooks: [] },
  {
    type: 'function_result',
    call_id: 'c2',
    name: 'write_file',
    is_error: false,
    blocked: false,
    result: {},
    hooks: [],
  },
]);
const waiting = interaction(
  'int_2',
  'env_b',
  [
    {
      type: 'code_execution_call',
      id: 'c3',
      arguments: { code: 'deploy' },
      hooks: [hook('gate', 'ask')],
    },
  ],
  {
    status: 'requires_action',
    pending_approvals: [
      {
        call_id: 'c3',
        tool_call: { name: 'code_execution', args: {} },
        hooks: [],
        reason: 'needs a human',
        status: 'pending',
        expires_at: '2026-01-02T00:00:00.000Z',
      },
    ],
  },
);

describe('the console after a restart', () => {
  it("reads an interaction's tools, gates and call outcomes from its steps", () => {
    expect(interactionFacts(denied)).toEqual({
      steps: 4,
      denials: 1,
      tools: ['code_execution', 'write_file'],
      gates: ['gate'],
      call_outcomes: ['blocked', 'ok'],
    });
    expect(interactionFacts(waiting).call_outcomes).toEqual(['waiting']);
    expect(callsOfInteraction(waiting)).toEqual([
      expect.objectContaining({
        call_id: 'c3',
        outcome: 'blocked',
        waiting: true,
        reason: 'needs a human',
      }),
    ]);
    expect(callsOfInteraction(denied)[0]).toMatchObject({
      reason: 'gate says deny',
      outcome: 'blocked',
    });
  });

  it('seeds the lists with stored interactions, keeping what was observed since start', () => {
    const observers = new Observers();
    const activity = new Activity(observers);
    observers.emit({
      kind: 'interaction',
      at: Date.now(),
      interaction_id: 'int_2',
      environment_id: 'env_b',
      agent: 'scripted',
      status: 'completed',
      tenant: 'alice',
      created: waiting.created,
      steps: 2,
      denials: 0,
      tools: ['code_execution'],
      gates: ['gate'],
      call_outcomes: ['ok'],
    });
    activity.seed(
      [
        { interaction: waiting, tenant: 'alice' },
        { interaction: denied, tenant: 'bob' },
      ],
      (id) => id === 'env_a',
    );
    const listed = activity.recentInteractions();
    expect(listed.map((i) => [i.interaction_id, i.status, i.tenant])).toEqual([
      ['int_2', 'completed', 'alice'],
      ['int_1', 'completed', 'bob'],
    ]);
    expect(listed[1]).toMatchObject({ tools: ['code_execution', 'write_file'], denials: 1 });
    expect(activity.callsOf('env_a').map((call) => [call.call_id, call.outcome])).toEqual([
      ['c2', 'ok'],
      ['c1', 'blocked'],
    ]);
    expect(activity.environmentActivity('env_a')).toMatchObject({ calls: 2, denials: 1 });
    // An environment that is gone gets no calls.
    expect(activity.callsOf('env_b')).toEqual([]);
  });
});
