// stopWithin (src/cli/shutdown.ts): a stop that never ends still ends the process, with exit 0, once
// the grace period is over; a stop that ends leaves only an unref'd exit behind.
import { describe, expect, it } from 'vitest';
import { stopWithin } from '../../src/cli/shutdown.js';

describe('stopWithin', () => {
  it('exits 0 when the stop outlasts the grace period, and says so', async () => {
    const said: string[] = [];
    const exits: number[] = [];
    await stopWithin(
      50,
      () => new Promise(() => {}),
      { stderr: (text) => said.push(text) },
      (code) => exits.push(code),
    );
    expect(exits).toEqual([0]);
    expect(said.join('')).toMatch(/still stopping after 0 s \(--shutdown-grace\): exiting/);
  });

  it('returns as soon as the stop ends, without exiting then', async () => {
    const exits: number[] = [];
    let stopped = false;
    await stopWithin(
      60_000,
      async () => {
        stopped = true;
      },
      { stderr: () => {} },
      (code) => exits.push(code),
    );
    expect(stopped).toBe(true);
    expect(exits).toEqual([]);
  });
});
