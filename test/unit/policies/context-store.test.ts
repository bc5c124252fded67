import { describe, expect, it } from 'vitest';
import { ContextStore, HookRunner, type Hook } from '../../../src/hooks/controller-hooks/index.js';
import { delay, toolCallScope } from './support.js';

function hierarchy(): { environment: ContextStore; interaction: ContextStore; call: ContextStore } {
  const environment = new ContextStore();
  const interaction = environment.createChild('interaction');
  const call = interaction.createChild('call');
  return { environment, interaction, call };
}

describe('ContextStore get and set', () => {
  it('get walks up to the parents and takes the nearest value', () => {
    const { environment, interaction, call } = hierarchy();
    environment.set('tier', 'free');
    environment.set('region', 'eu');
    interaction.set('tier', 'paid');
    expect(call.get('tier')).toBe('paid');
    expect(call.get('region')).toBe('eu');
    expect(call.get('missing')).toBeUndefined();
    expect(call.has('region')).toBe(true);
    expect(call.has('missing')).toBe(false);
  });

  it('set writes at its own level only, shadowing the parents without changing them', () => {
    const { environment, call } = hierarchy();
    environment.set('count', 1);
    call.set('count', 2);
    expect(call.get('count')).toBe(2);
    expect(environment.get('count')).toBe(1);
  });

  it('delete removes the local value and uncovers the parent one', () => {
    const { environment, call } = hierarchy();
    environment.set('mode', 'strict');
    call.set('mode', 'lax');
    expect(call.delete('mode')).toBe(true);
    expect(call.get('mode')).toBe('strict');
    expect(environment.get('mode')).toBe('strict');
  });

  it('a sibling does not see another sibling’s values', () => {
    const environment = new ContextStore();
    const first = environment.createChild('call');
    const second = environment.createChild('call');
    first.set('secret', 1);
    expect(second.get('secret')).toBeUndefined();
  });

  it('at finds the store of a level, and reports a missing interaction level', () => {
    const { environment, interaction, call } = hierarchy();
    expect(call.at('environment')).toBe(environment);
    expect(call.at('interaction')).toBe(interaction);
    expect(call.at('call')).toBe(call);
    const outsideInteraction = environment.createChild('call');
    expect(outsideInteraction.at('interaction')).toBeUndefined();
  });

  it('refuses a hierarchy in the wrong order', () => {
    const call = new ContextStore().createChild('call');
    expect(() => call.createChild('interaction')).toThrow(
      /interaction context store needs a parent at level environment/,
    );
    expect(() => new ContextStore({ level: 'call' })).toThrow(/needs a parent/);
  });
});

describe('ContextStore update', () => {
  it('reads and writes the local level only', async () => {
    const { environment, call } = hierarchy();
    environment.set('count', 10);
    const seen: unknown[] = [];
    const stored = await call.update('count', (current) => {
      seen.push(current);
      return 1;
    });
    expect(seen).toEqual([undefined]);
    expect(stored).toBe(1);
    expect(call.get('count')).toBe(1);
    expect(environment.get('count')).toBe(10);
  });

  it('loses no write when many async updates of one key overlap', async () => {
    const store = new ContextStore();
    const updates = Array.from({ length: 50 }, (_, index) =>
      store.update('count', async (current) => {
        // Yield in the middle of the read-modify-write, with varying delays, to invite interleaving.
        await delay(index % 3);
        return (typeof current === 'number' ? current : 0) + 1;
      }),
    );
    const results = await Promise.all(updates);
    expect(store.get('count')).toBe(50);
    expect(results).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
  });

  it('keeps updates of different keys independent', async () => {
    const store = new ContextStore();
    let releaseSlow: () => void = () => undefined;
    const slow = store.update(
      'slow',
      () => new Promise<number>((resolve) => (releaseSlow = () => resolve(1))),
    );
    await expect(store.update('fast', () => 2)).resolves.toBe(2);
    releaseSlow();
    await expect(slow).resolves.toBe(1);
  });

  it('a failed update leaves the value and lets the next update run', async () => {
    const store = new ContextStore();
    store.set('count', 1);
    const failing = store.update('count', () => {
      throw new Error('boom');
    });
    const next = store.update('count', (current) => (current as number) + 1);
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe(2);
  });

  it('reaches hooks through their context, so they can count across calls of an environment', async () => {
    const counter: Hook = {
      name: 'counter',
      async beforeToolCall(context) {
        await context.store
          .at('environment')
          .update('calls', (current) => ((current as number | undefined) ?? 0) + 1);
        context.store.set('seen', true);
      },
    };
    const runner = new HookRunner([counter]);
    const environment = new ContextStore();
    const calls = Array.from({ length: 5 }, (_, index) =>
      runner.beforeToolCall(
        toolCallScope({ callId: `call_${index}`, store: environment.createChild('call') }),
        {
          name: 'read_file',
          args: { path: 'a' },
        },
      ),
    );
    await Promise.all(calls);
    expect(environment.get('calls')).toBe(5);
    expect(environment.get('seen')).toBeUndefined();
  });
});
