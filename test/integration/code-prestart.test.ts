// code_execution interpreters started ahead (docs/gates.md, "Prestart and workers"): the code runs
// as it would with `-c`, only where no earlier call's process can reach the waiting interpreter.
import { describe, expect, it } from 'vitest';
import { bash, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();
// Time, not an event: these tests read a process's age (or give an earlier call's leftovers time to
// act), so time has to pass; `environment.prestarted()` is the event for "the processes are there".
const pause = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long before the code ran its process was started, in seconds (from /proc, no fork). */
const AGE_BASH =
  's=$(</proc/$$/stat); set -- ${s##*) }; read up _ </proc/uptime; echo "age $(( ${up%.*}*100 + 10#${up#*.} - ${20} ))"';
const ageOf = (stdout: string) => Number(/age (-?\d+)/.exec(stdout)?.[1]) / 100;

describe('prestarted code_execution interpreters', () => {
  it('run bash, sh and python code as -c would, from a process started before the call', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      await environment.call(bash('true'));
      await pause();
      const first = await environment.call(
        bash(
          `echo "$0 $# [\${__hookbox_code-unset}]"; [ -e /dev/fd/3 ] && echo fd3 open; ${AGE_BASH}; exit 7`,
        ),
      );
      expect(execResultOf(first).stdout).toMatch(/^\/bin\/bash 0 \[unset\]\nage \d+\n$/);
      expect(execResultOf(first).exit_code).toBe(7);
      expect(ageOf(execResultOf(first).stdout)).toBeGreaterThanOrEqual(0.2);

      const missing = await environment.call(bash('no_such_command_here'));
      expect(execResultOf(missing).stderr).toBe(
        '/bin/bash: line 1: no_such_command_here: command not found\n',
      );

      await environment.call({
        name: 'code_execution',
        args: { code: 'true', language: 'python' },
      });
      await pause();
      const python = await environment.call({
        name: 'code_execution',
        args: {
          code: 'import sys, os\nprint(sys.argv, __name__, sorted(k for k in globals() if not k.startswith("__")), sys.path[0] == "")\nprint(os.path.exists("/proc/self/fd/3"))',
          language: 'python',
        },
      });
      expect(execResultOf(python).stdout).toBe("['-c'] __main__ ['os', 'sys'] True\nFalse\n");

      await environment.call({ name: 'code_execution', args: { code: 'true', language: 'sh' } });
      await pause();
      const sh = await environment.call({
        name: 'code_execution',
        args: {
          code: 'echo "$0 [${__hookbox_code-unset}] [${__hookbox_line-unset}]"\necho two',
          language: 'sh',
        },
      });
      expect(execResultOf(sh).stdout).toBe('/bin/sh [unset] [unset]\ntwo\n');
    });
  });

  it('is never started where background processes may outlive a call', async () => {
    await withEnvironment(controller, { backgroundProcesses: true }, async (environment) => {
      await environment.call(bash('true'));
      await pause();
      const outcome = await environment.call(bash(AGE_BASH));
      expect(ageOf(execResultOf(outcome).stdout)).toBeLessThan(0.2);
    });
  });

  it('cannot be reached by what an earlier call left behind', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      // Tries, in the background, to write code into any other tool process's descriptors.
      await environment.call(
        bash(
          `( for i in $(seq 60); do for p in /proc/[0-9]*; do [ "$p" = /proc/$BASHPID ] || for f in 0 3 4; do echo 'echo INJECTED;' 2>/dev/null >$p/fd/$f; done; done; sleep 0.02; done ) >/dev/null 2>&1 &`,
        ),
      );
      await pause();
      const outcome = await environment.call(bash('echo clean'));
      expect(execResultOf(outcome).stdout).toBe('clean\n');
    });
  });
});
