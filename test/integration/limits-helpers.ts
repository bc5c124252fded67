// Shared by the limits-*.test.ts files (docs/contract.md §5, §6, against real containers): timed
// tool calls, the processes left in a sandbox, a gate that denies "FORBIDDEN", and one environment
// per describe (`const sharedEnvironment = sharedEnvironmentOf(controller)`).
import { afterAll, beforeAll, expect } from 'vitest';
import type { Controller } from '../../src/controller/controller.js';
import type { CallOutcome, Environment } from '../../src/controller/environment.js';
import type { EnvironmentOptions } from '../../src/controller/environment-options.js';
import { bash, hooksJson, inline, rule } from './helpers.js';

/** Runs bash as tool code and times the whole call; the call must not be blocked. */
export async function timed(
  environment: Environment,
  code: string,
): Promise<{ result: ExecResult; ms: number; outcome: CallOutcome }> {
  const started = Date.now();
  const outcome = await environment.call(bash(code));
  const ms = Date.now() - started;
  expect(outcome.blocked, `blocked: ${outcome.reason}`).toBe(false);
  return { result: execResultOf(outcome), ms, outcome };
}

export const run = async (environment: Environment, code: string) =>
  (await timed(environment, code)).result;

/** Processes of `user` whose command line contains `needle` (ps itself never does: it is given a pattern). */
export async function processesOf(
  environment: Environment,
  user: string,
  needle: string,
): Promise<string[]> {
  const { stdout } = await run(
    environment,
    `ps -eo user:12,pid,cmd --no-headers | grep -F '${needle}' | grep -v -e grep -e 'ps -eo'; true`,
  );
  return stdout.split('\n').filter((line) => line.startsWith(`${user} `));
}

/** Prints how many live processes of the tool user there are, besides this one and its parent. */
export const COUNT_TOOL_PROCESSES = `python3 -c "
import os
me, n = {os.getpid(), os.getppid()}, 0
for p in filter(str.isdigit, os.listdir('/proc')):
    try:
        if int(p) not in me and os.stat('/proc/' + p).st_uid == 1000:
            n += open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[0] not in ('Z', 'X')
    except OSError:
        pass
print(n)"`;
import { execResultOf } from '../../src/tools/results.js';
import type { ExecResult } from '../../src/tools/types.js';

const GATE = inline(
  '.agents/gate.sh',
  `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`,
);
export const GATED: EnvironmentOptions['sources'] = [
  hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh')] } }),
  GATE,
];

export async function expectWorkingAndGated(environment: Environment): Promise<void> {
  const blocked = await environment.call(bash('echo FORBIDDEN'));
  expect([blocked.blocked, blocked.reason]).toEqual([true, 'forbidden word']);
  const { result } = await timed(environment, 'echo alive; id -u');
  expect(result.stdout).toBe('alive\n1000\n');
}

/** One environment per describe, deleted after it; `controller` is the file's useController(). */
export function sharedEnvironmentOf(
  controller: () => Promise<Controller>,
): (options: EnvironmentOptions) => () => Environment {
  return (options) => {
    let environment: Environment | undefined;
    beforeAll(async () => {
      environment = await (await controller()).createEnvironment(options);
    });
    afterAll(async () => {
      await environment?.delete();
    });
    return () => environment!;
  };
}
