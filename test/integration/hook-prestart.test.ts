// Prestarted hook processes (docs/gates.md, "Prestart and workers"): each event still gets a fresh
// process, per-call values are right whether the prestarted process is used or not, swapped gates
// never answer with an old script, and a prestarted process killed from outside changes nothing.
import { execa } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { describe, expect, it } from 'vitest';
import { placeSources } from '../../src/config/sources.js';
import type { CallOutcome, Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';

const controller = useController();

/** Time for a handler that never reads stdin to exit on its own (one test below). */
const BETWEEN_CALLS_MS = 400;
const pause = () => new Promise((resolve) => setTimeout(resolve, BETWEEN_CALLS_MS));

function preGate(matcher: string, script: string, extra: Record<string, unknown> = {}) {
  return [
    hooksJson({
      gate: {
        pre_tool_execution: [
          {
            matcher,
            hooks: [
              { type: 'command', command: 'python3 /.agents/hooks-scripts/gate.py', ...extra },
            ],
          },
        ],
      },
    }),
    inline('.agents/hooks-scripts/gate.py', script),
  ];
}

/** Denies every call, saying what it saw: a module global, its per-call variables, its version. */
const REPORTING_GATE = (version: string) => `
import json, os, sys
count = 0
def answer():
    global count
    count += 1
    payload = json.load(sys.stdin)
    seen = [str(count), os.environ["HOOKBOX_CALL_ID"], os.environ["HOOKBOX_TOOL_NAME"],
            os.environ["HOOKBOX_EVENT"], payload["tool_call"]["name"], "${version}"]
    print(json.dumps({"decision": "deny", "reason": " ".join(seen)}))
answer()
`;
import { execResultOf } from '../../src/tools/results.js';

const runnerOf = (outcome: CallOutcome) => outcome.hooks[0]!.runner;

async function killHookProcesses(environment: Environment): Promise<void> {
  // As root, from outside the agent: every process of the hook user (uid 1001).
  await execa('docker', [
    'exec',
    environment.sandbox.containerId,
    'sh',
    '-c',
    'for p in /proc/[0-9]*; do [ "$(stat -c %u $p)" = 1001 ] && kill -9 ${p#/proc/}; done; true',
  ]);
}

describe('prestarted hook processes', () => {
  it('are off where the controller says so (HOOKBOX_PRESTART=off, prestartHooks: false)', async () => {
    const off = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-test-')),
      logger: createLogger({ level: 'silent' }),
      prestartHooks: false,
    });
    try {
      const environment = await off.createEnvironment({
        vocabulary: '2026-05',
        sources: preGate('code_execution', REPORTING_GATE('v1')),
      });
      for (let i = 0; i < 2; i++) {
        await environment.prestarted();
        const outcome = await environment.call(bash('true'));
        expect(outcome.reason).toBe(
          `1 ${outcome.call_id} code_execution pre_tool_execution code_execution v1`,
        );
        expect([runnerOf(outcome), outcome.hooks[0]!.runner_note]).toEqual(['spawned', undefined]);
      }
    } finally {
      await off.close();
    }
  });

  it('has the next process asked for before a call that follows at once', async () => {
    await withEnvironment(
      controller,
      { sources: preGate('code_execution', REPORTING_GATE('v1')) },
      async (environment) => {
        await environment.prestarted();
        const runners: (string | undefined)[] = [];
        for (let i = 0; i < 3; i++) {
          // No pause: the request for this call's process is written after the previous call's
          // outcome is out, and before this call's own request.
          const outcome = await environment.call(bash('echo hi'));
          expect(outcome.reason).toBe(
            `1 ${outcome.call_id} code_execution pre_tool_execution code_execution v1`,
          );
          runners.push(runnerOf(outcome));
        }
        expect(runners).toEqual(['prestarted', 'prestarted', 'prestarted']);
      },
    );
  });

  it('gives every event a fresh process, with the per-call values of a hit', async () => {
    await withEnvironment(
      controller,
      { sources: preGate('code_execution', REPORTING_GATE('v1')) },
      async (environment) => {
        const runners: (string | undefined)[] = [];
        for (let i = 0; i < 4; i++) {
          await environment.prestarted();
          const outcome = await environment.call(bash('echo hi'));
          expect(outcome.blocked).toBe(true);
          expect(outcome.reason).toBe(
            `1 ${outcome.call_id} code_execution pre_tool_execution code_execution v1`,
          );
          runners.push(runnerOf(outcome));
        }
        expect(runners).toEqual(['prestarted', 'prestarted', 'prestarted', 'prestarted']);
      },
    );
  });

  it('spawns on a miss (another tool than expected), with that call’s values', async () => {
    await withEnvironment(
      controller,
      { sources: preGate('.*', REPORTING_GATE('v1')) },
      async (environment) => {
        const calls = [
          bash('true'),
          { name: 'list_files', args: { path: '/workspace' } },
          bash('true'),
          bash('true'),
        ];
        const seen: [string | undefined, string | undefined][] = [];
        for (const call of calls) {
          await environment.prestarted();
          const outcome = await environment.call(call);
          expect(outcome.reason).toBe(
            `1 ${outcome.call_id} ${call.name} pre_tool_execution ${call.name} v1`,
          );
          seen.push([runnerOf(outcome), outcome.hooks[0]!.runner_note]);
        }
        // Prestarted for code_execution (no call yet), then for the tool most recently called.
        expect(seen[0]![0]).toBe('prestarted');
        expect(seen[1]).toEqual(['spawned', 'prestarted with other values of HOOKBOX_TOOL_NAME']);
        expect(seen[2]).toEqual(['spawned', 'prestarted with other values of HOOKBOX_TOOL_NAME']);
        expect(seen[3]![0]).toBe('prestarted');
      },
    );
  });

  it('never answers with a process of the gates that were replaced', async () => {
    await withEnvironment(
      controller,
      { sources: preGate('code_execution', REPORTING_GATE('v0')) },
      async (environment) => {
        for (let version = 1; version <= 3; version++) {
          await environment.prestarted();
          await environment.addSources(
            placeSources(preGate('code_execution', REPORTING_GATE(`v${version}`))),
          );
          // No pause: the call may come before the new gates' process is ready.
          const outcome = await environment.call(bash('true'));
          expect(outcome.reason).toMatch(new RegExp(` v${version}$`));
          await environment.prestarted();
          const next = await environment.call(bash('true'));
          expect(next.reason).toMatch(new RegExp(` v${version}$`));
          expect(runnerOf(next)).toBe('prestarted');
        }
      },
    );
  });

  it('falls back to a spawn when the prestarted process was killed from outside', async () => {
    await withEnvironment(
      controller,
      { sources: preGate('code_execution', REPORTING_GATE('v1')) },
      async (environment) => {
        await environment.prestarted();
        await killHookProcesses(environment);
        const outcome = await environment.call(bash('echo hi'));
        expect(outcome.reason).toBe(
          `1 ${outcome.call_id} code_execution pre_tool_execution code_execution v1`,
        );
        expect(runnerOf(outcome)).toBe('spawned');
        expect(outcome.hooks[0]!.runner_note).toBe('the prestarted process had exited');
        await environment.prestarted();
        expect(runnerOf(await environment.call(bash('true')))).toBe('prestarted');
      },
    );
  });

  it('spawns what should not run ahead: "prestart": false, shell commands, a handler that never reads stdin', async () => {
    const allowing = [
      hooksJson({
        gate: {
          pre_tool_execution: [
            {
              matcher: 'code_execution',
              hooks: [
                {
                  type: 'command',
                  command: 'python3 /.agents/hooks-scripts/gate.py',
                  prestart: false,
                },
                // Not python: spawned per event unless asked for (a redirection acts at once).
                { type: 'command', command: 'cat > "$HOOKBOX_STATE_DIR/seen"; echo {}' },
                // Asked for, but it exits before its event: given up after two tries.
                { type: 'command', command: `echo '{"decision": "allow"}'`, prestart: true },
              ],
            },
          ],
        },
      }),
      inline('.agents/hooks-scripts/gate.py', 'import sys; sys.stdin.read(); print("{}")'),
    ];
    await withEnvironment(controller, { sources: allowing }, async (environment) => {
      const seen: (string | undefined)[][] = [];
      for (let i = 0; i < 4; i++) {
        // Time, not an event: the handler asked for must have exited on its own inside the sandbox
        // before the call comes, and nothing outside the sandbox is told when it does.
        await environment.prestarted();
        await pause();
        const outcome = await environment.call(bash('echo ran'));
        expect(outcome.blocked).toBe(false);
        expect(execResultOf(outcome).stdout).toBe('ran\n');
        expect(outcome.hooks.map((hook) => hook.runner)).toEqual(['spawned', 'spawned', 'spawned']);
        expect(outcome.hooks[0]!.runner_note).toBeUndefined();
        expect(outcome.hooks[1]!.runner_note).toBeUndefined();
        seen.push([outcome.hooks[2]!.runner_note]);
      }
      expect(seen).toEqual([
        ['the prestarted process had exited'],
        ['the prestarted process had exited'],
        ['no prestarted process'],
        ['no prestarted process'],
      ]);
    });
  });

  it('keeps the hook state dir and timeouts as for a spawned hook', async () => {
    const slow = preGate(
      'code_execution',
      'import json, sys, time\njson.load(sys.stdin)\ntime.sleep(5)\nprint("{}")\n',
      { timeout: 1, on_error: 'deny' },
    );
    await withEnvironment(controller, { sources: slow }, async (environment) => {
      // Long after the process started: the timeout counts from the payload, not from its start.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const outcome = await environment.call(bash('true'));
      expect(outcome.hooks[0]).toMatchObject({ outcome: 'timeout', runner: 'prestarted' });
      expect(outcome.hooks[0]!.duration_ms).toBeGreaterThanOrEqual(1000);
      expect(outcome.blocked).toBe(true);
    });
  });
});
