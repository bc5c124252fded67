import { describe, expect, it } from 'vitest';
import {
  isEnvironmentId,
  newCallId,
  newEnvironmentId,
  newInteractionId,
  newSnapshotId,
  SNAPSHOT_ID_PATTERN,
} from '../../src/ids.js';

describe('ids', () => {
  it('are shaped and never repeat, across many refills of the random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const call = newCallId();
      const environment = newEnvironmentId();
      const snapshot = newSnapshotId();
      const interaction = newInteractionId();
      expect(call).toMatch(/^call_[a-z2-7]{16}$/);
      expect(isEnvironmentId(environment)).toBe(true);
      expect(snapshot).toMatch(SNAPSHOT_ID_PATTERN);
      expect(interaction).toMatch(/^int_[a-z2-7]{20}$/);
      for (const id of [call, environment, snapshot, interaction]) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
  });
  it('use the whole alphabet', () => {
    const letters = new Set([...Array.from({ length: 200 }, () => newCallId().slice(5)).join('')]);
    expect(letters.size).toBe(32);
  });
});
