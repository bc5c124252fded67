// What the console shows beyond the API (src/server/console/activity.ts): gate health per hook
// group over the last hour and day, recent calls, interactions and egress, with bounded memory.
import { describe, expect, it } from 'vitest';
import { Observers } from '../../src/record/observations.js';
import type { HookOutcome, HookRecord } from '../../src/record/types.js';
import { Activity, gateHealthOf, quantile } from '../../src/server/console/activity.js';

const HOUR = 60 * 60_000;

function hook(group: string, outcome: HookOutcome, duration_ms: number): HookRecord {
  return {
    source: 'sandbox',
    environment_id: 'env_a',
    call_id: 'call_1',
    group,
    event: 'pre_tool_execution',
    type: 'command',
    handler: 'gate.py',
    outcome,
    reason: outcome === 'deny' ? 'no' : null,
    exit_code: 0,
    duration_ms,
  };
}

describe('gate health', () => {
  it('quantiles by nearest rank', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantile(sorted, 0.5)).toBe(5);
    expect(quantile(sorted, 0.95)).toBe(10);
    expect(quantile([], 0.5)).toBe(null);
  });

  it('gives rates of deny, error, timeout and unrecognized per group; skipped runs have no duration', () => {
    const runs = [
      ...['deny', 'allow', 'error', 'timeout', 'unrecognized'].map((outcome, index) => ({
        at: 0,
        group: 'security-gate',
        event: 'pre_tool_execution',
        source: 'sandbox',
        outcome: outcome as HookOutcome,
        duration_ms: (index + 1) * 10,
      })),
      {
        at: 0,
        group: 'security-gate',
        event: 'pre_tool_execution',
        source: 'sandbox',
        outcome: 'skipped' as const,
        duration_ms: 0,
      },
      {
        at: 0,
        group: 'audit',
        event: 'post_tool_execution',
        source: 'sandbox',
        outcome: 'ok' as const,
        duration_ms: 3,
      },
    ];
    const [gate, audit] = gateHealthOf(runs);
    expect(gate).toMatchObject({
      group: 'security-gate',
      runs: 6,
      rates: { deny: 1 / 6, error: 1 / 6, timeout: 1 / 6, unrecognized: 1 / 6 },
      p50_ms: 30,
      p95_ms: 50,
    });
    expect(audit).toMatchObject({ group: 'audit', runs: 1, p50_ms: 3, rates: { deny: 0 } });
  });

  it('keeps a day of hook runs: the hour window and the day window differ', () => {
    let now = 10 * HOUR;
    const observers = new Observers();
    const activity = new Activity(observers, {}, () => now);
    const run = (outcome: HookOutcome) =>
      observers.emit({ kind: 'hook_run', at: now, record: hook('gate', outcome, 5) });
    run('deny');
    now += 2 * HOUR;
    run('allow');
    run('allow');
    const health = activity.gateHealth();
    expect(health.hour[0]).toMatchObject({ runs: 2, rates: { deny: 0 } });
    expect(health.day[0]).toMatchObject({ runs: 3 });
    expect(health.day[0]!.rates.deny).toBeCloseTo(1 / 3);
    now += 23 * HOUR; // the deny is 25 h old now, the allows 23 h
    expect(activity.gateHealth().day[0]).toMatchObject({ runs: 2, rates: { deny: 0 } });
    expect(activity.gateHealth().hour).toEqual([]);
    now += 2 * HOUR;
    expect(activity.gateHealth().day).toEqual([]);
  });
});

describe('activity', () => {
  it('remembers calls per environment (newest first, bounded) and forgets a deleted environment', () => {
    const observers = new Observers();
    const activity = new Activity(observers, { callsPerEnvironment: 2 });
    for (const [index, outcome] of (['ok', 'blocked', 'error'] as const).entries()) {
      observers.emit({
        kind: 'tool_call',
        at: Date.now(),
        environment_id: 'env_a',
        call_id: `call_${index}`,
        tool: 'code_execution',
        outcome,
        reason: outcome === 'blocked' ? '<script>x</script>' : null,
        hooks: [],
      });
    }
    expect(activity.callsOf('env_a').map((call) => call.call_id)).toEqual(['call_2', 'call_1']);
    expect(activity.environmentActivity('env_a')).toMatchObject({ calls: 3, denials: 1 });
    expect(activity.environmentActivity('env_a').last_call?.outcome).toBe('error');
    observers.emit({ kind: 'environment_deleted', at: Date.now(), environment_id: 'env_a' });
    expect(activity.callsOf('env_a')).toEqual([]);
    expect(activity.environmentActivity('env_a').calls).toBe(0);
  });

  it('lists the latest interactions, each once, newest first, at most the limit', () => {
    const observers = new Observers();
    const activity = new Activity(observers, { interactions: 2 });
    const emit = (id: string, status: 'in_progress' | 'completed') =>
      observers.emit({
        kind: 'interaction',
        at: Date.now(),
        interaction_id: id,
        environment_id: 'env_a',
        agent: 'scripted',
        status,
        tenant: null,
        steps: 1,
        denials: 0,
        tools: [],
        gates: [],
        call_outcomes: [],
        created: new Date().toISOString(),
      });
    emit('int_1', 'in_progress');
    emit('int_2', 'in_progress');
    emit('int_1', 'completed');
    emit('int_3', 'in_progress');
    expect(activity.recentInteractions().map((i) => [i.interaction_id, i.status])).toEqual([
      ['int_3', 'in_progress'],
      ['int_1', 'completed'],
    ]);
  });

  it('a listener that throws does not stop the others', () => {
    const observers = new Observers();
    const seen: string[] = [];
    observers.add(() => {
      throw new Error('broken watcher');
    });
    observers.add((observation) => seen.push(observation.kind));
    observers.emit({ kind: 'environment_deleted', at: 0, environment_id: 'env_a' });
    expect(seen).toEqual(['environment_deleted']);
  });
});
