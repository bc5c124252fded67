// Snapshots and forks (docs/environments.md, "Snapshots and forks") on the real engine: a snapshot
// made into new environments (library and HTTP) keeps the workspace and the gates; forks are
// independent copies; list/get/delete, tenants, TTL expiry, a controller restart, bad input.
import Docker from 'dockerode';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import { createLogger } from '../../src/record/logger.js';
import { LABEL_SNAPSHOT } from '../../src/sandbox/labels.js';
import { bash } from './helpers.js';
import { FILL, GATED, LIST } from './snapshot-fixtures.js';
import { execResultOf } from '../../src/tools/results.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const docker = new Docker();

async function run(environment: Environment, code: string): Promise<string> {
  const outcome = await environment.call(bash(code));
  if (outcome.blocked || execResultOf(outcome).exit_code !== 0)
    throw new Error(`call failed: ${JSON.stringify(outcome)}`);
  return execResultOf(outcome).stdout;
}

async function snapshotVolumes(id: string): Promise<string[]> {
  const list = await docker.listVolumes({ filters: { label: [`${LABEL_SNAPSHOT}=${id}`] } });
  return (list.Volumes ?? []).map((volume) => volume.Name);
}

describe('snapshots and forks, through the library', () => {
  let controller: Controller;
  let source: Environment;
  let expected: string;

  beforeAll(async () => {
    controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-snap-')),
      logger,
      startEngine: false,
    });
    source = await controller.createEnvironment({ sources: GATED, vocabulary: '2026-05' });
    await run(source, FILL);
    expected = await run(source, LIST);
  });
  afterAll(async () => {
    await controller?.close();
  });

  it('a snapshot made into a new environment has the same files and gates', async () => {
    const snapshot = await controller.snapshotEnvironment(source.id);
    expect(snapshot.id).toMatch(/^snap_/);
    expect(await snapshotVolumes(snapshot.id)).toEqual([snapshot.volume]);
    expect(source.records()).toContainEqual(
      expect.objectContaining({ event: 'snapshot_taken', detail: { snapshot_id: snapshot.id } }),
    );
    const restored = await controller.createEnvironment({ snapshot: snapshot.id });
    try {
      expect(restored.id).not.toBe(source.id);
      expect(restored.vocabulary).toBe('2026-05');
      expect(await run(restored, LIST)).toBe(expected);
      const denied = await restored.call(bash('echo forbidden'));
      expect(denied.blocked).toBe(true);
    } finally {
      await controller.deleteEnvironment(restored.id);
      await controller.snapshots.delete(snapshot);
    }
    expect(await snapshotVolumes(snapshot.id)).toEqual([]);
  });

  it('five forks are independent copies of the source', async () => {
    const forks = await controller.forkEnvironment(source.id, 5);
    try {
      expect(new Set(forks.map((fork) => fork.id)).size).toBe(5);
      expect(source.records()).toContainEqual(
        expect.objectContaining({
          event: 'forked',
          detail: { environment_ids: forks.map((fork) => fork.id) },
        }),
      );
      for (const fork of forks) expect(await run(fork, LIST)).toBe(expected);
      await run(forks[0]!, 'echo changed > a.txt && touch only-here');
      expect(await run(forks[0]!, 'cat a.txt')).toBe('changed\n');
      for (const other of [source, ...forks.slice(1)]) {
        expect(await run(other, 'cat a.txt')).toBe('one\n');
        expect(await run(other, 'test -e only-here && echo yes || echo no')).toBe('no\n');
      }
      for (const fork of forks)
        expect((await fork.call(bash('echo forbidden'))).blocked).toBe(true);
    } finally {
      await Promise.all(forks.map((fork) => controller.deleteEnvironment(fork.id)));
    }
  });

  it('copies a workspace disk (sandbox.diskMb) into disks of the same size', async () => {
    const disk = await controller.createEnvironment({ sandbox: { diskMb: 64 } });
    const made: Environment[] = [];
    try {
      await run(disk, 'echo on-disk > x.txt');
      const snapshot = await controller.snapshotEnvironment(disk.id);
      made.push(await controller.createEnvironment({ snapshot: snapshot.id }));
      made.push(...(await controller.forkEnvironment(disk.id, 2)));
      await controller.snapshots.delete(snapshot);
      for (const copy of made) {
        expect(await run(copy, 'cat x.txt')).toBe('on-disk\n');
        const size = Number(await run(copy, 'df -m --output=size /workspace | tail -1'));
        expect(size).toBeGreaterThan(50);
        expect(size).toBeLessThanOrEqual(64);
      }
      await run(made[0]!, 'echo changed > x.txt');
      expect(await run(disk, 'cat x.txt')).toBe('on-disk\n');
      expect(await run(made[1]!, 'cat x.txt')).toBe('on-disk\n');
    } finally {
      await Promise.all([disk, ...made].map((e) => controller.deleteEnvironment(e.id)));
    }
  });

  it('copies the network rules as last given (in memory), and says a snapshot had one', async () => {
    const networked = await controller.createEnvironment({
      network: { allowlist: [{ domain: 'example.com' }] },
    });
    const made: Environment[] = [];
    try {
      await networked.replaceNetwork({ allowlist: [{ domain: 'example.org' }] });
      const snapshot = await controller.snapshotEnvironment(networked.id);
      expect(snapshot.networked).toBe(true);
      made.push(await controller.createEnvironment({ snapshot: snapshot.id }));
      made.push(...(await controller.forkEnvironment(networked.id, 1)));
      await controller.snapshots.delete(snapshot);
      for (const copy of made)
        expect(copy.network).toEqual({ allowlist: [{ domain: 'example.org' }] });
      // A copy of an environment without a network has none.
      const [plain] = await controller.forkEnvironment(source.id, 1);
      made.push(plain!);
      expect(plain!.network).toBe('disabled');
      expect(plain!.egress).toBeUndefined();
    } finally {
      await Promise.all([networked, ...made].map((e) => controller.deleteEnvironment(e.id)));
    }
  });

  it('refuses a bad count, an unknown snapshot and options beside a snapshot', async () => {
    await expect(controller.forkEnvironment(source.id, 0)).rejects.toThrow(
      /count: must be a whole number from 1 to 10/,
    );
    await expect(controller.forkEnvironment(source.id, 11)).rejects.toThrow(/count/);
    await expect(
      controller.createEnvironment({ snapshot: 'snap_aaaaaaaaaaaaaaaaaaaa' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(controller.createEnvironment({ snapshot: 'nope' })).rejects.toThrow(
      /snapshot: must be a snapshot id/,
    );
    const snapshot = await controller.snapshotEnvironment(source.id);
    try {
      await expect(
        controller.createEnvironment({ snapshot: snapshot.id, template: 'default' }),
      ).rejects.toThrow(/template: not with snapshot/);
    } finally {
      await controller.snapshots.delete(snapshot);
    }
  });
});
