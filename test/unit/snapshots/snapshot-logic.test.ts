// The pure parts of snapshots and forks: the helper's script and container, the fill plans, the
// batch that runs one helper for N copies, the fork count, the records in SQLite.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyHelperSpec, copyScript } from '../../../src/snapshots/copy-helper.js';
import { checkForkCount, checkSnapshotTarget } from '../../../src/snapshots/snapshot-checks.js';
import {
  MemorySnapshotRows,
  SqliteSnapshotRows,
  type SnapshotRow,
} from '../../../src/snapshots/snapshot-rows.js';
import { Snapshots } from '../../../src/snapshots/snapshots.js';
import type { ContainerClient } from '../../../src/sandbox/container-client.js';
import type { Environment } from '../../../src/controller/environment.js';
import type { Logger } from '../../../src/record/logger.js';
import type { FillTarget } from '../../../src/sandbox/sandbox-create.js';
import { FillBatch, fillPlan, snapshotPlan } from '../../../src/snapshots/workspace-fill.js';

const controller = { id: 'ctl_test', pid: 1 };
const target = (n: number): FillTarget => ({
  environmentId: `env_${n}`,
  workspace: { volume: `hookbox-env_${n}-workspace` },
  agents: `hookbox-env_${n}-agents`,
});

describe('the copy helper', () => {
  it('copies every pair at once with cp -a and fails if any copy fails', () => {
    const script = copyScript({
      mounts: [],
      folders: ['/to/workspace'],
      copies: [
        { from: '/from/workspace', to: '/to/workspace' },
        { from: '/from/agents', to: '/to/agents' },
      ],
    });
    expect(script).toContain("mkdir -p '/to/workspace'");
    expect(script).toContain("cp -a -- '/from/workspace/.' '/to/workspace/' &");
    expect(script).toContain("cp -a -- '/from/agents/.' '/to/agents/' &");
    expect(script).toContain('wait "$pid" || exit 1');
  });

  it('refuses a path that would need quoting', () => {
    expect(() => copyScript({ mounts: [], copies: [{ from: "/a'b", to: '/c' }] })).toThrow(
      /bad path/,
    );
  });

  it('runs without network, read-only root and only the capabilities cp -a needs', () => {
    const spec = copyHelperSpec(
      snapshotPlan(
        { kind: 'environment', workspace: { hostPath: '/disks/env_1/mnt' }, agents: 'a' },
        'snap-volume',
      ),
      { image: 'hookbox/sandbox:latest', environmentId: 'env_1', controller },
    );
    expect(spec.network).toBe('none');
    expect(spec.capabilities.sort()).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID']);
    expect(spec.labels['dev.hookbox.managed']).toBe('true');
    expect(spec.labels['dev.hookbox.role']).toBe('copy');
    expect(spec.pidsLimit).toBeLessThanOrEqual(64);
    // The source read-only (a workspace disk by its host mount), the snapshot writable.
    expect(spec.bindMounts).toEqual([
      { source: '/disks/env_1/mnt', target: '/from/workspace', readOnly: true },
    ]);
    expect(spec.mounts).toEqual([
      { volume: 'a', target: '/from/agents', readOnly: true },
      { volume: 'snap-volume', target: '/to', readOnly: false },
    ]);
  });
});

describe('fill plans', () => {
  it('mounts a snapshot once, read-only, and every target writable', () => {
    const plan = fillPlan({ kind: 'snapshot', volume: 'snap' }, [target(1), target(2)]);
    expect(plan.mounts.filter((mount) => mount.readOnly)).toEqual([
      { source: { volume: 'snap' }, target: '/from', readOnly: true },
    ]);
    expect(plan.mounts.filter((mount) => !mount.readOnly)).toHaveLength(4);
    expect(plan.copies).toEqual([
      { from: '/from/workspace', to: '/to0/workspace' },
      { from: '/from/agents', to: '/to0/agents' },
      { from: '/from/workspace', to: '/to1/workspace' },
      { from: '/from/agents', to: '/to1/agents' },
    ]);
  });

  it("makes each target's /workspace/.agents mountpoint before copying, so the engine cannot race cp to it", () => {
    const plan = fillPlan({ kind: 'snapshot', volume: 'snap' }, [target(1), target(2)]);
    expect(plan.folders).toEqual(['/to0/workspace/.agents', '/to1/workspace/.agents']);
    const script = copyScript(plan);
    expect(
      script.indexOf("mkdir -p '/to0/workspace/.agents' '/to1/workspace/.agents'"),
    ).toBeGreaterThan(-1);
    expect(script.indexOf('mkdir -p')).toBeLessThan(script.indexOf('cp -a'));
  });
});

describe('FillBatch', () => {
  it('runs one copy once every slot has its volumes', async () => {
    const runs: FillTarget[][] = [];
    const batch = new FillBatch(3, async (targets, onStarted) => {
      onStarted();
      runs.push(targets);
    });
    const first = batch.fill(0)(target(0));
    expect(runs).toHaveLength(0);
    const second = batch.fill(1)(target(1));
    const third = batch.fill(2)(target(2));
    await Promise.all([first.done, second.done, third.done]);
    expect(runs).toEqual([[target(0), target(1), target(2)]]);
  });

  it('does not wait for a slot that failed before its volumes existed', async () => {
    const runs: FillTarget[][] = [];
    const batch = new FillBatch(3, async (targets) => {
      runs.push(targets);
    });
    const first = batch.fill(0)(target(0));
    batch.withdraw(1);
    batch.withdraw(1);
    const third = batch.fill(2)(target(2));
    await Promise.all([first.done, third.done]);
    expect(runs).toEqual([[target(0), target(2)]]);
  });

  it('fails every slot when the copy fails, and still says it started', async () => {
    const batch = new FillBatch(3, async () => {
      throw new Error('cp failed');
    });
    const runs = [0, 1, 2].map((index) => batch.fill(index)(target(index)));
    await Promise.all(runs.map((run) => run.started));
    for (const run of runs) await expect(run.done).rejects.toThrow('cp failed');
  });

  it('lets one or two copies start beside their sandboxes', async () => {
    let release!: () => void;
    const batch = new FillBatch(1, () => new Promise<void>((resolve) => (release = resolve)));
    const run = batch.fill(0)(target(0));
    await run.started;
    release();
    await run.done;
  });
});

describe('checks', () => {
  it('takes a fork count from 1 to 10, as a number or query text', () => {
    expect(checkForkCount('1')).toBe(1);
    expect(checkForkCount(10)).toBe(10);
    for (const bad of ['0', '11', 'x', '', '2.5', -1, 1.5, undefined])
      expect(() => checkForkCount(bad)).toThrow(/count: must be a whole number from 1 to 10/);
  });

  it('refuses anything but type beside snapshot_id, naming it', () => {
    expect(() =>
      checkSnapshotTarget({ type: 'remote', snapshot_id: 's' }, 'environment'),
    ).not.toThrow();
    expect(() =>
      checkSnapshotTarget({ type: 'remote', snapshot_id: 's', sources: [] }, 'environment'),
    ).toThrow(/environment\.sources: not with environment\.snapshot_id/);
  });
});

describe('SqliteSnapshotRows', () => {
  it('keeps records across connections and reads them back checked', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hookbox-snap-rows-')), 'state.sqlite');
    const row: SnapshotRow = {
      id: 'snap_aaaaaaaaaaaaaaaaaaaa',
      environment_id: 'env_aaaaaaaaaaaaaaaaaaaa',
      volume: 'hookbox-snap_aaaaaaaaaaaaaaaaaaaa',
      created: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-02T00:00:00.000Z',
      tenant: 'alice',
      recipe: {
        vocabulary: '2026-05',
        template: 'default',
        toolTimeoutMs: 60_000,
        outputCapBytes: 1024,
        backgroundProcesses: false,
        env: { A: 'b' },
        sandbox: { memoryMb: 512 },
        hooksJson: '{"hooks": {}}',
      },
      networked: false,
    };
    const first = new SqliteSnapshotRows(path);
    await first.save(row);
    first.close();
    const second = new SqliteSnapshotRows(path);
    expect(await second.get(row.id)).toEqual(row);
    expect(await second.list()).toEqual([row]);
    await second.delete(row.id);
    expect(await second.get(row.id)).toBeUndefined();
    second.close();
  });
});

describe('an engine without the copy helper (Kubernetes)', () => {
  it('refuses snapshots and forks with unsupported', async () => {
    const snapshots = new Snapshots({
      client: {} as ContainerClient,
      logger: {} as Logger,
      controller,
      image: 'x',
      rows: new MemorySnapshotRows(),
      ttlMs: 1000,
      createCopied: () => Promise.reject(new Error('not called')),
      deleteEnvironment: () => Promise.resolve(),
    });
    const environment = {} as Environment;
    await expect(snapshots.take(environment)).rejects.toMatchObject({ code: 'unsupported' });
    await expect(snapshots.fork(environment, 2)).rejects.toMatchObject({ code: 'unsupported' });
  });
});
