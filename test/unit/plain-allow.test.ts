/**
 * The agent runs a call's code in its pre hook's request only on a "plain allow"
 * (sandbox-image/agent/plain_allow.py; docs/gates.md, "One request per gated call"). That test
 * must be strictly narrower than the controller's reading of a pre hook: every answer the agent
 * calls a plain allow must be an allow that does not block, even under `on_error: "deny"`. Both
 * are run here over answers chosen to split them (the agent's with the host's python3).
 */
import { describe, expect, it } from 'vitest';
import { decidePre, type HandlerRun } from '../../src/hooks/decision.js';
import { mapAgentFunction } from './agent-python.js';

/** The answers the agent takes as a plain allow (with exit 0 and nothing else amiss). */
const PLAIN = [
  '{"decision": "allow"}',
  '{"decision":"allow"}\n',
  ' \t{"decision":"allow","reason":"fine"}\r\n',
  '{"reason":"","decision":"allow"}',
  '{"decision":"allow","reason":"\\ud800"}',
  '{"decision":"allow","reason":"caf\\u00e9 ☕"}',
  '{"decision":"allow","reason":"a\\u0000b"}',
];

const STDOUTS = [
  ...PLAIN,
  '{"decision":"allow","reason":null}',
  '{"decision":"allow","reason":1}',
  '{"decision":"allow","note":1}',
  '{"decision":"allow","additionalContext":"x"}',
  '{"decision":"allow","decision":"allow"}',
  '{"decision":"deny","decision":"allow"}',
  '{"decision":"allow","reason":NaN}',
  '{"decision":"allow","reason":Infinity}',
  '{"decision":"Allow"}',
  '{"decision":"allow "}',
  '{"decision":"deny"}',
  '{"decision":"ask"}',
  '{"decision":"allow"}{"decision":"deny"}',
  '{"decision":"allow"}\n{"decision":"deny"}',
  '{"decision":"allow"} x',
  '\ufeff{"decision":"allow"}',
  '["allow"]',
  '"allow"',
  'allow',
  '{}',
  '',
  '{"decision":"allow"',
  '{"decision":"allow","reason":"tab\there"}',
  '{"decision":"allow","nested":{"decision":"deny"}}',
];

interface Case extends HandlerRun {
  signal: number | null;
}

const cases: Case[] = [];
for (const stdout of STDOUTS) {
  const base = { stdout, stderr: '', timed_out: false, truncated: false, signal: null };
  cases.push({ ...base, exit_code: 0 });
  cases.push({ ...base, exit_code: 1 });
  cases.push({ ...base, exit_code: 0, truncated: true });
  cases.push({ ...base, exit_code: 0, timed_out: true });
  cases.push({ ...base, exit_code: 137, signal: 9 });
}

const agentVerdicts = () => mapAgentFunction<boolean>('plain_allow', 'plainly_allows', cases);

describe("the agent's plain allow", () => {
  const verdicts = agentVerdicts();

  it('is always an allow the controller lets through, even under on_error "deny"', () => {
    const handler = { onError: 'deny' as const, timeoutSeconds: 5 };
    const wrong = cases.filter((run, index) => {
      if (!verdicts[index]) return false;
      const decision = decidePre(run, handler);
      return decision.outcome !== 'allow' || decision.blocks;
    });
    expect(wrong).toEqual([]);
  });

  it('takes the common allows and nothing with a field the controller reads', () => {
    const plain = cases.filter((_, index) => verdicts[index]).map((run) => run.stdout);
    expect(plain).toEqual(PLAIN);
  });
});
