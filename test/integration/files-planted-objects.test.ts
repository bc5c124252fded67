// docs/environments.md, "Files": objects tool code plants in /workspace (a symlink into the
// read-only .agents mirror, a symlink loop, a fifo, a link into /proc/1/root) turn a files-API
// request into a user error (4xx) that names the path, never a 500 `sandbox_failed` carrying the
// operating system's errno text; the `.agents` refusal is made on the path the links resolve to.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/index.js';
import type { Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

const PLANT = [
  'ln -s .agents agents-link',
  'ln -s loop-b loop-a && ln -s loop-a loop-b',
  'mkfifo pipe',
  'ln -s /proc/1/root/etc proc-link',
  'echo planted',
].join(' && ');

async function refusal(attempt: () => Promise<unknown>): Promise<UserError> {
  try {
    await attempt();
  } catch (error) {
    if (error instanceof UserError) return error;
    throw new Error(`expected a user error, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a refusal');
}

/** Every refusal is a user error naming the path, without errno's wording. */
function expectNamed(error: UserError, path: string, reason: string | RegExp): void {
  expect(error.message).toContain(`/workspace/${path}`);
  expect(error.message).not.toMatch(/\[Errno|Errno \d+/);
  expect(String((error.details as { reason?: unknown }).reason)).toMatch(reason);
}

async function planted(environment: Environment): Promise<void> {
  const made = await environment.call(bash(PLANT));
  expect(execResultOf(made).stdout).toBe('planted\n');
}

describe('the files API on objects tool code planted', () => {
  it('a symlink into .agents: writing through it is refused as the read-only mirror, by its resolved path', async () => {
    await withEnvironment(controller, { sources: [hooksJson({})] }, async (environment) => {
      await planted(environment);
      for (const path of ['agents-link/hooks.json', 'agents-link/new.sh']) {
        const error = await refusal(() =>
          environment.files.write(path, Buffer.from('{}'), { overwrite: true }),
        );
        expectNamed(error, path, 'agents');
        expect(error.message).toContain('/workspace/.agents');
        expect(error.code).toBe('invalid_argument');
      }
      const deleting = await refusal(() => environment.files.delete('agents-link/hooks.json'));
      expectNamed(deleting, 'agents-link/hooks.json', 'agents');
      // Reading the mirror through the link is fine: it is readable anyway.
      const read = await environment.files.read('agents-link/hooks.json');
      expect(read.type).toBe('file');
    });
  });

  it('a symlink loop, a fifo and a link into /proc/1/root: 4xx naming the path, for every action', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      await planted(environment);
      const cases: [string, string, () => Promise<unknown>][] = [];
      for (const [path, reason, archiveReason] of [
        ['loop-a', 'loop', 'loop'],
        ['loop-a/x', 'loop', 'loop'],
        ['pipe', 'not_regular', 'not_directory'],
        ['proc-link', 'escapes', 'escapes'],
        ['proc-link/hostname', 'escapes', 'escapes'],
      ] as const) {
        cases.push(
          [path, reason, () => environment.files.read(path)],
          [path, archiveReason, () => environment.files.readArchive(path)],
          [
            path,
            reason,
            () => environment.files.write(path, Buffer.from('x'), { overwrite: true }),
          ],
        );
      }
      // Deleting beneath a planted link; deleting the link itself removes the link (below).
      cases.push(
        ['loop-a/x', 'loop', () => environment.files.delete('loop-a/x')],
        ['proc-link/hostname', 'escapes', () => environment.files.delete('proc-link/hostname')],
      );
      const seen: string[] = [];
      for (const [path, reason, attempt] of cases) {
        const error = await refusal(attempt);
        seen.push(`${path}: ${String((error.details as { reason?: unknown }).reason)}`);
        expectNamed(error, path, reason);
      }
      expect(seen).toHaveLength(cases.length);
      // The planted objects themselves can be deleted: the link, never what it leads to.
      for (const path of ['loop-a', 'pipe', 'proc-link', 'agents-link'])
        expect((await environment.files.delete(path)).path).toBe(path);
      const left = await environment.call(bash('ls; ls /proc/1/root/etc >/dev/null 2>&1; echo $?'));
      expect(execResultOf(left).stdout).toBe('loop-b\n2\n');
    });
  });
});
