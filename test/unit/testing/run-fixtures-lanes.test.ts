// How `hookbox test` shares environments between cases (docs/gates.md, "How the cases run"), with
// an in-memory controller: blocked calls leave the environment alone, a call that ran has it
// restored (and replaced if the restore does not give back the workspace it had when new), and a
// containment batch that changed something outside /workspace is done again case by case, so the
// failure lands on the case that caused it. The real containers: test/integration/corpus.test.ts.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../../src/controller/controller.js';
import type { EnvironmentOptions } from '../../../src/controller/environment-options.js';
import { parseFixture } from '../../../src/testing/load-fixtures.js';
import { runFixtures } from '../../../src/testing/run-fixtures.js';

interface FakeEnvironment {
  gated: boolean;
  /** What tool code left in /workspace; '' when as new. */
  workspace: string;
  rootChanges: string[];
  wipes: number;
  deleted: boolean;
}

/** A controller whose environments answer from memory (only what the runner uses). */
function fakeController(options: { wipeFails?: boolean } = {}) {
  const made: FakeEnvironment[] = [];
  const controller = {
    createEnvironment(request: EnvironmentOptions) {
      const state: FakeEnvironment = {
        gated: (request.sources ?? []).some((source) => source.target === '.agents/hooks.json'),
        workspace: '',
        rootChanges: [],
        wipes: 0,
        deleted: false,
      };
      made.push(state);
      const shell = (code: string): string => {
        if (code.includes('ipcrm')) {
          state.wipes++;
          if (!options.wipeFails) state.workspace = '';
          return '';
        }
        if (code.includes('cd /workspace')) return `workspace:${state.workspace}`;
        if (code.includes('/.agents')) return 'agents-hash';
        throw new Error(`unexpected code ${code}`);
      };
      return Promise.resolve({
        id: `env_${made.length}`,
        auditLogPath: join(tmpdir(), 'hookbox-no-such-audit-log'),
        call(call: { name: string; args: { code?: string } }) {
          const code = call.args.code ?? '';
          if (state.gated && code.includes('BLOCK'))
            return Promise.resolve({ blocked: true, reason: 'blocked: BLOCK', result: null });
          if (code.includes('TOUCH_ROOT')) state.rootChanges.push('A /etc/touched');
          if (code !== 'echo alive') state.workspace += code.includes('LITTER') ? 'litter;' : '';
          const stdout = code === 'echo alive' ? 'alive\n' : '';
          return Promise.resolve({
            blocked: false,
            reason: null,
            result: { exit_code: 0, stdout, stderr: '', timed_out: false, truncated: false },
          });
        },
        delete() {
          state.deleted = true;
          return Promise.resolve();
        },
        sandbox: {
          request(op: string, body: { code?: string }) {
            if (op === 'run_code') return Promise.resolve({ stdout: shell(body.code ?? '') });
            if (op === 'kill_tool_processes') return Promise.resolve({ killed: 0 });
            throw new Error(`unexpected op ${op}`);
          },
          addWorkspaceSources: () => Promise.resolve(),
          rootFilesystemChanges: () => Promise.resolve([...state.rootChanges]),
        },
      });
    },
  };
  return { controller: controller as unknown as Controller, made };
}

function fixture(cases: string[]) {
  const text = JSON.stringify({
    name: 'lanes',
    sources: { inline: [{ target: '.agents/hooks.json', content: '{"hooks": {}}' }] },
    cases: cases.map((code, index) => ({
      name: `case-${index}`,
      call: { name: 'code_execution', args: { code } },
      expect: { blocked: code.includes('BLOCK') },
      destructive: code.includes('BLOCK'),
    })),
  });
  return [{ file: 'lanes.json', fixture: parseFixture(text, 'lanes.json') }];
}

describe('hookbox test: environments shared between cases', () => {
  it('runs blocked cases back to back and restores the environment only after a call that ran', async () => {
    const { controller, made } = fakeController();
    const results = await runFixtures(
      controller,
      fixture(['BLOCK 1', 'BLOCK 2', 'echo LITTER', 'BLOCK 3', 'echo 4']),
      { containment: false },
    );
    expect(results.map((result) => result.passed)).toEqual([true, true, true, true, true]);
    expect(made).toHaveLength(1);
    // Once after the LITTER call (before BLOCK 3), never after a blocked one.
    expect(made[0]!.wipes).toBe(1);
    expect(made[0]!.deleted).toBe(true);
  });

  it('replaces an environment whose restored workspace is not the one it had when new', async () => {
    const { controller, made } = fakeController({ wipeFails: true });
    const results = await runFixtures(controller, fixture(['echo LITTER', 'echo 2', 'echo 3']), {
      containment: false,
    });
    expect(results.every((result) => result.passed)).toBe(true);
    // The litter survived the restore: the second case got a new environment.
    expect(made.length).toBe(2);
    expect(made.every((environment) => environment.deleted)).toBe(true);
  });

  it("gives each case an environment of its own when audit logs are kept (a log is one case's)", async () => {
    const { controller, made } = fakeController();
    const results = await runFixtures(controller, fixture(['BLOCK a', 'echo b']), {
      keepAuditLogs: true,
    });
    expect(results.map((result) => [result.mode, result.passed])).toEqual([
      ['gated', true],
      ['containment', true],
      ['gated', true],
    ]);
    expect(made).toHaveLength(3);
  });

  it('checks a clean containment batch once, in one environment', async () => {
    const { controller, made } = fakeController();
    const results = await runFixtures(controller, fixture(['BLOCK a', 'BLOCK b', 'BLOCK c']));
    expect(results.filter((result) => result.mode === 'containment')).toHaveLength(3);
    expect(results.every((result) => result.passed)).toBe(true);
    expect(made.filter((environment) => !environment.gated)).toHaveLength(1);
  });

  it('does a batch again case by case when something outside /workspace changed, failing only the case that did it', async () => {
    const { controller, made } = fakeController();
    const results = await runFixtures(
      controller,
      fixture(['BLOCK a', 'BLOCK TOUCH_ROOT b', 'BLOCK c']),
    );
    const contained = results.filter((result) => result.mode === 'containment');
    expect(contained.map((result) => [result.name, result.passed])).toEqual([
      ['case-0', true],
      ['case-1', false],
      ['case-2', true],
    ]);
    expect(contained[1]!.failures).toEqual([
      'with the gate off, something outside /workspace changed (file tree or /.agents fingerprint differs)',
    ]);
    // The batch's environment, then one of its own per case.
    expect(made.filter((environment) => !environment.gated)).toHaveLength(4);
    expect(made.every((environment) => environment.deleted)).toBe(true);
  });
});
