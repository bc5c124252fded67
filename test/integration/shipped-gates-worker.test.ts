// The shipped gates (hooks-scripts/) ship with "worker": true: installed as they are, they answer
// from their workers, with the same decisions as their one-shot runs (docs/gates.md).
import { execa } from 'execa';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InlineSource } from '../../src/config/sources.js';
import { packageRoot } from '../../src/paths.js';
import { bash, inline, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();
const SHIPPED = ['destructive', 'sensitive-paths', 'audit'];

/** The three shipped folders as sources, their hooks.json groups merged, exactly as shipped. */
function shippedSources(): InlineSource[] {
  const sources: InlineSource[] = [];
  const groups: Record<string, unknown> = {};
  for (const gate of SHIPPED) {
    const root = join(packageRoot(), 'hooks-scripts', gate);
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== '__pycache__') walk(path);
        } else if (entry.name === 'hooks.json') {
          Object.assign(groups, JSON.parse(readFileSync(path, 'utf8')));
        } else {
          sources.push(
            inline(
              `.agents/hooks-scripts/${gate}/${relative(root, path)}`,
              readFileSync(path, 'utf8'),
            ),
          );
        }
      }
    };
    walk(root);
  }
  return [inline('.agents/hooks.json', JSON.stringify(groups)), ...sources];
}

describe('the shipped gates as workers', () => {
  it('block and allow as they do one-shot, each answered by its worker', async () => {
    await withEnvironment(
      controller,
      { sources: [...shippedSources(), inline('workspace/.env', 'KEY=1\n')] },
      async (environment) => {
        const destroy = await environment.call(bash('rm -rf /etc'));
        expect(destroy.blocked).toBe(true);
        expect(destroy.reason).toMatch(/recursive-delete-outside-workspace/);

        const fine = await environment.call(bash('echo fine'));
        expect(fine.blocked).toBe(false);
        expect(execResultOf(fine).stdout).toBe('fine\n');

        const secret = await environment.call({ name: 'read_file', args: { path: '.env' } });
        expect(secret.blocked).toBe(true);

        const groups = new Set(
          [destroy, fine, secret].flatMap((o) =>
            o.hooks.filter((h) => h.outcome !== 'skipped').map((h) => `${h.group}:${h.runner}`),
          ),
        );
        expect(groups).toEqual(
          new Set(['destructive-gate:worker', 'sensitive-paths:worker', 'audit-log:worker']),
        );

        // The audit worker wrote one line per call that ran, with each call's own values.
        const { stdout } = await execa('docker', [
          'exec',
          '-u',
          '1001',
          environment.sandbox.containerId,
          'cat',
          '/var/lib/hookbox/state/audit.jsonl',
        ]);
        const lines = stdout.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(lines.map((line) => [line.tool, line.args, line.exit_code])).toEqual([
          ['code_execution', { code: 'echo fine', language: 'bash' }, 0],
        ]);
        expect(lines[0]?.environment_id).toBe(environment.id);
      },
    );
  });
});
