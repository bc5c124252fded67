// README, Security model: "Gates cannot be switched off by tool code". Hooks run with cwd
// /workspace, so tool code that could take away the hook user's way into /workspace (its mode) would
// stop every later hook from starting, and a hook that cannot start allows the call.
import { describe, expect, it } from 'vitest';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;
const SOURCES = [
  hooksJson({
    gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh', 'sh .agents/gate.sh')] },
  }),
  inline('.agents/gate.sh', GATE),
];

describe('the mode of /workspace cannot be changed by tool code', () => {
  it('/workspace belongs to root, writable by the tool group (0775)', async () => {
    await withEnvironment(controller, { sources: SOURCES }, async (environment) => {
      const outcome = await environment.call(
        bash('stat -c "%u:%g %a" /workspace; touch /workspace/x && echo wrote'),
      );
      expect(execResultOf(outcome).stdout).toBe('0:1000 775\nwrote\n');
    });
  });

  it.each([
    'chmod 000 /workspace',
    'chmod 700 /workspace',
    'chmod 000 .',
    'chmod -R 000 /workspace',
    'chmod o-x /workspace',
    'python3 -c "import os; os.chmod(\'/workspace\', 0)" 2>/dev/null',
  ])('%s fails; every later hook still starts and blocks', async (attack) => {
    await withEnvironment(controller, { sources: SOURCES }, async (environment) => {
      const attempt = await environment.call(
        bash(`${attack}; echo "exit $?"; stat -c %a /workspace`),
      );
      expect(attempt.blocked).toBe(false);
      expect(execResultOf(attempt).stdout).toMatch(/^exit [1-9]\d*\n775\n$/);
      for (let i = 0; i < 2; i++) {
        const gated = await environment.call(bash('echo FORBIDDEN'));
        expect(gated.hooks.map((hook) => hook.outcome)).toEqual(['deny', 'skipped']);
        expect([gated.blocked, gated.reason]).toEqual([true, 'forbidden word']);
      }
      const fine = await environment.call(bash('pwd; echo ok > after && cat after'));
      expect(execResultOf(fine).stdout).toBe('/workspace\nok\n');
    });
  });
});
