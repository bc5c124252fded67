// What one call adds to the audit log is bounded (control characters grow sixfold in JSON), and
// `hookbox gc` prunes audit logs of gone environments by age and total size.
import { mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_LIMITS } from '../../src/record/audit-bound.js';
import { cli } from './cli-helpers.js';
import { bash, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

describe('audit log size per call', () => {
  it('a call printing 1 MiB of control characters on each stream adds at most the per-call bound', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      const before = statSync(environment.auditLogPath).size;
      const calls = 5;
      for (let i = 0; i < calls; i++) {
        const outcome = await environment.call(
          bash(
            "head -c 1048576 /dev/zero | tr '\\0' '\\1'; head -c 1048576 /dev/zero | tr '\\0' '\\2' >&2",
          ),
        );
        expect(execResultOf(outcome).stdout).toHaveLength(1024 * 1024);
      }
      const added = statSync(environment.auditLogPath).size - before;
      expect(added).toBeLessThanOrEqual(calls * (AUDIT_LIMITS.maxCallBytes + 8 * 1024));
      // Each entry still parses and says it was cut, and how long it was.
      const entries = environment.records().filter((entry) => entry.kind === 'tool_call');
      expect(entries).toHaveLength(calls);
      for (const entry of entries) {
        const truncated = (entry as unknown as { audit_truncated?: { bytes: number } })
          .audit_truncated;
        expect(truncated?.bytes).toBeGreaterThan(6 * 1024 * 1024);
        expect(entry.tool_call.name).toBe('code_execution');
      }
    });
  });
});

describe('hookbox gc: audit log retention', () => {
  let home: string;
  const saved = process.env.HOOKBOX_HOME;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hookbox-gc-audit-'));
    process.env.HOOKBOX_HOME = home;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.HOOKBOX_HOME;
    else process.env.HOOKBOX_HOME = saved;
  });

  const log = (id: string, bytes: number, ageDays: number) => {
    mkdirSync(join(home, 'audit'), { recursive: true });
    const path = join(home, 'audit', `${id}.jsonl`);
    writeFileSync(path, 'x'.repeat(bytes));
    const when = new Date(Date.now() - ageDays * 86_400_000);
    utimesSync(path, when, when);
    return path;
  };

  it('removes logs of gone environments older than the age limit (default 30 days)', async () => {
    const old = log('env_gonegonegonegone0001', 100, 45);
    const recent = log('env_gonegonegonegone0002', 100, 2);
    const result = await cli('gc', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { auditLogs: string[] }).auditLogs).toEqual([
      'env_gonegonegonegone0001',
    ]);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });

  it('then removes the oldest until the rest fit the size limit; a live environment keeps its log', async () => {
    const a = log('env_gonegonegonegone0003', 600 * 1024, 3);
    const b = log('env_gonegonegonegone0004', 600 * 1024, 2);
    const c = log('env_gonegonegonegone0005', 600 * 1024, 1);
    await withEnvironment(controller, {}, async (environment) => {
      // The live environment's own log sits in the controller's home: put one for it here too.
      const live = log(environment.id, 600 * 1024, 90);
      const result = await cli('gc', '--audit-max-total-mb', '1', '--json');
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(a)).toBe(false);
      expect(existsSync(b)).toBe(false);
      expect(existsSync(c)).toBe(false);
    });
  });

  it('bad retention values are exit 2, naming the option', async () => {
    const result = await cli('gc', '--audit-max-age-days', 'soon');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--audit-max-age-days');
  });
});
