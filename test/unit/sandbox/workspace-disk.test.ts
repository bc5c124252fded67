// The pure-logic parts of workspace disks: when a controller falls back to plain volumes, and which
// leftover disks the reaper removes. (Making and mounting a disk: test/integration/isolation-disk.)
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/record/logger.js';
import {
  removeStaleWorkspaceDisks,
  workspaceDiskFor,
  workspaceDiskUnavailable,
} from '../../../src/sandbox/workspace-disk.js';

const logger = createLogger({ level: 'silent' });
const savedDockerHost = process.env.DOCKER_HOST;
afterEach(() => {
  if (savedDockerHost === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = savedDockerHost;
});

describe('workspace disks', () => {
  it('a remote engine gets plain volumes: nothing is made here', async () => {
    process.env.DOCKER_HOST = 'tcp://build-host.example:2375';
    expect(workspaceDiskUnavailable()).toMatch(/remote.*tcp:\/\/build-host/);
    const root = mkdtempSync(join(tmpdir(), 'hookbox-disks-'));
    expect(await workspaceDiskFor(root, 'env_remote', 64, logger)).toBeUndefined();
    expect(existsSync(join(root, 'env_remote'))).toBe(false);
  });

  it('diskMb 0 and a controller without a disk folder get plain volumes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hookbox-disks-'));
    expect(await workspaceDiskFor(root, 'env_zero', 0, logger)).toBeUndefined();
    expect(await workspaceDiskFor(undefined, 'env_none', 64, logger)).toBeUndefined();
    expect(existsSync(join(root, 'env_zero'))).toBe(false);
  });

  it('the reaper removes disks of environments without a container, once a minute old or their controller is dead', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hookbox-disks-'));
    const now = Date.now();
    const names = ['env_live', 'env_old', 'env_young', 'env_orphan', 'not-an-environment'];
    for (const name of names) {
      mkdirSync(join(root, name, 'mnt'), { recursive: true });
      writeFileSync(join(root, name, 'owner'), name === 'env_orphan' ? '4242\n' : '1\n');
      const at =
        (name === 'env_young' || name === 'env_orphan' ? now - 10_000 : now - 120_000) / 1000;
      utimesSync(join(root, name), at, at);
    }
    const alive = (pid: number) => pid !== 4242;
    const removed = await removeStaleWorkspaceDisks(
      root,
      new Set(['env_live']),
      alive,
      60_000,
      now,
    );
    expect(removed.sort()).toEqual(['env_old', 'env_orphan']);
    expect(
      ['env_live', 'env_old', 'env_young', 'not-an-environment'].map((name) =>
        existsSync(join(root, name)),
      ),
    ).toEqual([true, false, true, true]);
  });
});
