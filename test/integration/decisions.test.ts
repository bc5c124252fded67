import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { hooksJson, inline, rule, useController } from './helpers.js';

// One gate whose behaviour the tool code picks with a "#case:NAME" comment, so every decision case
// of docs/contract.md §6 runs through the real sandbox agent with a real script.
const GATE = `#!/usr/bin/env python3
import json, os, signal, sys, time
data = json.load(sys.stdin)
code = data["tool_call"]["args"].get("code", "")
case = code.split("#case:")[1].strip() if "#case:" in code else "allow"
if case == "deny":
    print(json.dumps({"decision": "deny", "reason": "denied by the test gate"}))
elif case == "allow":
    print(json.dumps({"decision": "allow"}))
elif case == "other-json":
    print(json.dumps({"verdict": "deny", "reason": "wrong key"}))
elif case == "plain-text":
    print("deny")
elif case == "empty":
    pass
elif case == "nonzero-exit":
    print(json.dumps({"decision": "deny", "reason": "but exits 3"}))
    sys.exit(3)
elif case == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif case == "timeout":
    time.sleep(30)
`;

const CASES = [
  { name: 'deny', outcome: 'deny', blockedByDefault: true, blockedFailClosed: true },
  { name: 'allow', outcome: 'allow', blockedByDefault: false, blockedFailClosed: false },
  { name: 'other-json', outcome: 'unrecognized', blockedByDefault: false, blockedFailClosed: true },
  { name: 'plain-text', outcome: 'unrecognized', blockedByDefault: false, blockedFailClosed: true },
  { name: 'empty', outcome: 'unrecognized', blockedByDefault: false, blockedFailClosed: true },
  { name: 'nonzero-exit', outcome: 'error', blockedByDefault: false, blockedFailClosed: true },
  { name: 'crash', outcome: 'error', blockedByDefault: false, blockedFailClosed: true },
  { name: 'timeout', outcome: 'timeout', blockedByDefault: false, blockedFailClosed: true },
] as const;

const controller = useController();

for (const onError of ['allow', 'deny'] as const) {
  describe(`every decision case of docs/contract.md §6 with on_error "${onError}"`, () => {
    let environment: Environment;
    const ready = (async () => {
      const made = await (
        await controller()
      ).createEnvironment({
        sources: [
          hooksJson({
            gate: {
              pre_tool_execution: [
                rule('code_execution', {
                  command: 'python3 /.agents/gate.py',
                  timeout: 1,
                  on_error: onError,
                }),
              ],
            },
          }),
          inline('.agents/gate.py', GATE),
        ],
      });
      environment = made;
      return made;
    })();

    it.each(CASES)('$name', async (testCase) => {
      await ready;
      const started = Date.now();
      const outcome = await environment.call({
        name: 'code_execution',
        args: { code: `echo ran #case:${testCase.name}`, language: 'bash' },
      });
      const blocked = onError === 'deny' ? testCase.blockedFailClosed : testCase.blockedByDefault;
      expect(outcome.blocked).toBe(blocked);
      expect(outcome.hooks).toHaveLength(1);
      expect(outcome.hooks[0]!.outcome).toBe(testCase.outcome);
      if (blocked) {
        expect(outcome.result).toBeNull();
        expect(outcome.reason).toBeTruthy();
        if (testCase.name === 'deny') expect(outcome.reason).toBe('denied by the test gate');
        else expect(outcome.reason).toContain('on_error is "deny"');
      } else {
        expect(outcome.result).toMatchObject({ exit_code: 0, stdout: 'ran\n' });
      }
      if (testCase.name === 'nonzero-exit') expect(outcome.hooks[0]!.exit_code).toBe(3);
      if (testCase.name === 'timeout') {
        expect(outcome.hooks[0]!.duration_ms).toBeGreaterThanOrEqual(900);
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    });
  });
}
