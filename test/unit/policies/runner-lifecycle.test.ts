import { describe, expect, it } from 'vitest';
import {
  HookRunner,
  type Hook,
  type InteractionStartResult,
} from '../../../src/hooks/controller-hooks/index.js';
import { delay, environmentScope, interactionScope } from './support.js';

function turnGate(name: string, log: string[], answer: InteractionStartResult = undefined): Hook {
  return {
    name,
    onInteractionStart() {
      log.push(name);
      return answer;
    },
  };
}

describe('HookRunner observers (environment start and end, interaction end)', () => {
  it('run every hook in registration order', async () => {
    const log: string[] = [];
    const hooks: Hook[] = ['a', 'b', 'c'].map((name) => ({
      name,
      async onEnvironmentStart() {
        // The first hook is the slowest: order must come from registration, not from finishing first.
        await delay(name === 'a' ? 10 : 0);
        log.push(name);
      },
    }));
    const outcome = await new HookRunner(hooks).onEnvironmentStart(environmentScope());
    expect(log).toEqual(['a', 'b', 'c']);
    expect(outcome.records.map((record) => [record.handler, record.event, record.outcome])).toEqual(
      [
        ['a', 'environment_start', 'ok'],
        ['b', 'environment_start', 'ok'],
        ['c', 'environment_start', 'ok'],
      ],
    );
  });

  it('a failing observer is recorded and does not stop the others', async () => {
    const log: string[] = [];
    const hooks: Hook[] = [
      {
        name: 'broken',
        onEnvironmentEnd() {
          throw new Error('disk full');
        },
      },
      {
        name: 'cleanup',
        onEnvironmentEnd() {
          log.push('cleanup');
        },
      },
    ];
    const outcome = await new HookRunner(hooks).onEnvironmentEnd(environmentScope());
    expect(log).toEqual(['cleanup']);
    expect(outcome.records[0]).toMatchObject({
      source: 'controller',
      environment_id: 'env_test',
      interaction_id: null,
      event: 'environment_end',
      handler: 'broken',
      outcome: 'error',
      reason: 'hook "broken" failed: disk full; the other hooks still run',
      exit_code: null,
    });
    expect(outcome.records[1]).toMatchObject({ handler: 'cleanup', outcome: 'ok' });
  });

  it('records a value returned from an observer as unrecognized: observers cannot refuse', async () => {
    const hook = {
      name: 'wishful',
      onInteractionEnd: () => ({ decision: 'deny', reason: 'x' }),
    } as unknown as Hook;
    const outcome = await new HookRunner([hook]).onInteractionEnd(interactionScope());
    expect(outcome.records[0]).toMatchObject({
      event: 'interaction_end',
      interaction_id: 'interaction_1',
      outcome: 'unrecognized',
    });
  });
});

describe('HookRunner.onInteractionStart', () => {
  it('lets the turn run when no hook has an opinion', async () => {
    const log: string[] = [];
    const outcome = await new HookRunner([
      turnGate('a', log),
      turnGate('b', log),
    ]).onInteractionStart(interactionScope());
    expect(log).toEqual(['a', 'b']);
    expect(outcome).toMatchObject({ refused: false, reason: null });
  });

  it('short-circuits at the first refusal', async () => {
    const log: string[] = [];
    const runner = new HookRunner([
      turnGate('quiet', log),
      turnGate('budget', log, { decision: 'deny', reason: 'monthly budget spent' }),
      turnGate('later', log),
    ]);
    const outcome = await runner.onInteractionStart(interactionScope());
    expect(log).toEqual(['quiet', 'budget']);
    expect(outcome).toMatchObject({ refused: true, reason: 'monthly budget spent' });
    expect(outcome.records.map((record) => [record.handler, record.outcome])).toEqual([
      ['quiet', 'allow'],
      ['budget', 'deny'],
      ['later', 'skipped'],
    ]);
  });

  it('the first opinion wins: an allow ends the dispatch', async () => {
    const log: string[] = [];
    const runner = new HookRunner([
      turnGate('vip', log, { decision: 'allow' }),
      turnGate('budget', log, { decision: 'deny', reason: 'no' }),
    ]);
    const outcome = await runner.onInteractionStart(interactionScope());
    expect(log).toEqual(['vip']);
    expect(outcome.refused).toBe(false);
  });

  it('a hook that throws refuses the turn, naming the hook', async () => {
    const hook: Hook = {
      name: 'quota',
      onInteractionStart: () => Promise.reject(new Error('quota service down')),
    };
    const outcome = await new HookRunner([hook]).onInteractionStart(interactionScope());
    expect(outcome).toMatchObject({
      refused: true,
      reason: 'hook "quota" failed, so the turn is refused: quota service down',
    });
    expect(outcome.records[0]?.outcome).toBe('error');
  });

  it('a hook that answers with arguments refuses the turn: there are none to rewrite', async () => {
    const hook = { name: 'confused', onInteractionStart: () => ({ args: {} }) } as unknown as Hook;
    const outcome = await new HookRunner([hook]).onInteractionStart(interactionScope());
    expect(outcome).toMatchObject({ refused: true });
    expect(outcome.records[0]?.outcome).toBe('unrecognized');
  });
});
