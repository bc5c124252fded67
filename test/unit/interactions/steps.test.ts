import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../../src/controller/environment.js';
import { EnvironmentLeases } from '../../../src/interactions/leases.js';
import type { Interaction } from '../../../src/interactions/schema.js';
import {
  historyOf,
  outputTextOf,
  refusedReport,
  reportOf,
  stepsOf,
  userTextOf,
} from '../../../src/interactions/steps.js';
import { MemoryInteractionStore } from '../../../src/interactions/store.js';
import { transcriptOf } from '../../../src/interactions/transcript.js';
import type { HookRecord } from '../../../src/record/types.js';

const hook = (
  event: HookRecord['event'],
  outcome: HookRecord['outcome'],
  reason: string | null = null,
): HookRecord => ({
  source: 'sandbox',
  environment_id: 'env_a',
  call_id: 'call_1',
  group: 'security-gate',
  event,
  type: 'command',
  handler: 'python3 /.agents/hooks-scripts/gate.py',
  outcome,
  reason,
  exit_code: 0,
  duration_ms: 18.9,
});

const blockedOutcome: CallOutcome = {
  environment_id: 'env_a',
  call_id: 'call_1',
  tool_call: { name: 'code_execution', args: { code: 'rm -rf /tmp/forbidden', language: 'bash' } },
  blocked: true,
  reason: 'Destructive command blocked by security gate.',
  result: null,
  presented: null,
  is_error: true,
  hooks: [hook('pre_tool_execution', 'deny', 'Destructive command blocked by security gate.')],
};

const readOutcome: CallOutcome = {
  environment_id: 'env_a',
  call_id: 'call_2',
  tool_call: { name: 'read_file', args: { path: '/workspace/public/summary.json' } },
  blocked: false,
  reason: null,
  result: { content: '{"secret": 1}' },
  presented: { content: '{"secret": "[redacted]"}' },
  is_error: false,
  hooks: [hook('pre_tool_execution', 'allow'), hook('post_tool_execution', 'ok')],
};

describe('steps of a call', () => {
  it('a blocked code_execution: the reason is the error result the model sees', () => {
    const report = reportOf(blockedOutcome);
    expect(report).toMatchObject({
      is_error: true,
      text_for_model: 'Destructive command blocked by security gate.',
    });
    const [call, result] = stepsOf(report);
    expect(call).toEqual({
      type: 'code_execution_call',
      id: 'call_1',
      arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
      hooks: [
        {
          source: 'sandbox',
          group: 'security-gate',
          event: 'pre_tool_execution',
          type: 'command',
          handler: 'python3 /.agents/hooks-scripts/gate.py',
          outcome: 'deny',
          reason: 'Destructive command blocked by security gate.',
          exit_code: 0,
          duration_ms: 18.9,
        },
      ],
    });
    expect(result).toEqual({
      type: 'code_execution_result',
      call_id: 'call_1',
      result: 'Destructive command blocked by security gate.',
      structured_result: null,
      is_error: true,
      blocked: true,
      hooks: [],
    });
  });

  it('a file tool: function_call / function_result, pre hooks on the call, post hooks on the result, the presented result', () => {
    const [call, result] = stepsOf(reportOf(readOutcome), { path: 'public/summary.json' });
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'read_file',
      original_arguments: { path: 'public/summary.json' },
      hooks: [{ event: 'pre_tool_execution' }],
    });
    expect(result).toMatchObject({
      type: 'function_result',
      name: 'read_file',
      result: { content: '{"secret": "[redacted]"}' },
      is_error: false,
      hooks: [{ event: 'post_tool_execution', outcome: 'ok' }],
    });
  });

  it('a refused call carries the message as result and error', () => {
    const [, result] = stepsOf(refusedReport({ name: 'nope', args: {} }, 'unknown tool'));
    expect(result).toMatchObject({
      result: 'unknown tool',
      error: 'unknown tool',
      is_error: true,
      blocked: false,
    });
  });
});

function interactionWith(steps: Interaction['steps']): Interaction {
  return {
    id: 'int_1',
    object: 'interaction',
    status: 'completed',
    agent: 'scripted',
    environment_id: 'env_a',
    steps,
    output_text: '',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
  };
}

describe('history and output', () => {
  const steps: Interaction['steps'] = [
    { type: 'user_input', content: [{ type: 'text', text: 'go' }] },
    ...stepsOf(reportOf(blockedOutcome)),
    { type: 'model_output', content: [{ type: 'text', text: 'It was blocked.' }] },
    ...stepsOf(reportOf(readOutcome)),
    { type: 'model_output', content: [{ type: 'text', text: 'Summary: ' }] },
    { type: 'model_output', content: [{ type: 'text', text: 'fine.' }] },
  ];

  it('output_text is what the model said after its last call', () => {
    expect(outputTextOf(steps)).toBe('Summary: \nfine.');
    expect(outputTextOf(steps.slice(0, 3))).toBe('');
  });

  it('the history round-trips the reports the driver saw', () => {
    const turns = historyOf([interactionWith(steps)]);
    expect(turns.map((turn) => turn.role)).toEqual([
      'user',
      'tool_call',
      'model',
      'tool_call',
      'model',
      'model',
    ]);
    const blocked = turns[1]!;
    expect(blocked.role === 'tool_call' && blocked.report).toEqual(reportOf(blockedOutcome));
    const read = turns[3]!;
    expect(read.role === 'tool_call' && read.report.text_for_model).toBe(
      JSON.stringify(readOutcome.presented),
    );
  });

  it('user text: the string, or the text items only', () => {
    expect(userTextOf('hi')).toEqual([{ type: 'text', text: 'hi' }]);
    expect(
      userTextOf([
        { type: 'text', text: 'a' },
        { type: 'tool_call', name: 'x' },
      ]),
    ).toEqual([{ type: 'text', text: 'a' }]);
    expect(userTextOf([])).toEqual([]);
  });

  it('a transcript shows each call, each hook with outcome, reason and duration, each result', () => {
    const text = transcriptOf(interactionWith(steps));
    expect(text).toContain('interaction int_1 (agent scripted) in env_a');
    expect(text).toContain('▶ code_execution {"code":"rm -rf /tmp/forbidden","language":"bash"}');
    expect(text).toContain(
      '  pre  security-gate (command) → deny [19 ms]  Destructive command blocked by security gate.',
    );
    expect(text).toContain('  ✖ blocked: Destructive command blocked by security gate.');
    expect(text).toContain('▶ read_file {"path":"/workspace/public/summary.json"}');
    expect(text).toContain('  post security-gate (command) → ok [19 ms]');
    expect(text).toContain('« model: It was blocked.');
    expect(text).toContain('completed — 2 call(s), 1 blocked');
  });
});

describe('the in-memory store', () => {
  it('keeps copies and evicts the oldest past its size', async () => {
    const store = new MemoryInteractionStore(2);
    const first = interactionWith([]);
    await store.put(first);
    first.status = 'failed';
    expect((await store.get('int_1'))!.status).toBe('completed');
    await store.put({ ...first, id: 'int_2' });
    await store.put({ ...first, id: 'int_3' });
    expect(await store.get('int_1')).toBeUndefined();
    expect(store.size).toBe(2);
  });
});

describe('environment leases', () => {
  it('an environment expires after the TTL idle, never while busy', () => {
    let now = 0;
    const leases = new EnvironmentLeases(100, () => now);
    leases.acquire('env_a');
    now = 500;
    expect(leases.idle()).toEqual([]);
    expect(leases.expiresAt('env_a')).toBeUndefined();
    leases.release('env_a');
    expect(leases.expiresAt('env_a')).toBe(600);
    now = 599;
    expect(leases.idle()).toEqual([]);
    now = 600;
    expect(leases.idle()).toEqual(['env_a']);
    leases.forget('env_a', 'expired');
    expect(leases.whyGone('env_a')).toBe('expired');
    expect(leases.idle()).toEqual([]);
  });
});
