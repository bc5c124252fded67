// `ask` through the call pipeline over the in-memory agent (docs/contract.md §11): the approver's
// answer decides whether the held call runs; a re-run after its approval keeps the call's id.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest, ApprovalState, Approver } from '../../../src/hooks/approvals.js';
import { execResultOf } from '../../../src/tools/results.js';
import { answers, memoryEnvironment, type MemoryEnvironment } from '../fakes/memory-environment.js';

const ASKING = {
  g: {
    pre_tool_execution: [
      { matcher: 'code_execution', hooks: [{ type: 'command', command: 'ask', timeout: 2 }] },
    ],
  },
};

/** An approver that answers `state` and keeps what it was asked. */
class FixedApprover implements Approver {
  readonly asked: ApprovalRequest[] = [];
  constructor(private readonly state: ApprovalState) {}
  decide(request: ApprovalRequest): Promise<ApprovalState> {
    this.asked.push(request);
    return Promise.resolve(this.state);
  }
}

let made: MemoryEnvironment | undefined;
afterEach(async () => {
  await made?.close();
  made = undefined;
});

async function asking() {
  made = await memoryEnvironment({
    hooksJson: ASKING,
    agent: { hooks: { ask: answers({ decision: 'ask', reason: 'a human decides' }) } },
  });
  return made;
}

const CALL = { name: 'code_execution', args: { code: 'echo ran' } };

describe('approvals over the in-memory agent', () => {
  it('without an approver, the call is blocked as approval required', async () => {
    const { environment, agent } = await asking();
    const outcome = await environment.call(CALL);
    expect(outcome).toMatchObject({
      blocked: true,
      reason: 'approval required: a human decides',
      approval: { status: 'required' },
    });
    expect(agent.requestsOf('run_code')).toHaveLength(0);
  });

  it.each([
    ['denied', { status: 'denied', reason: 'no' }, 'approval denied (no): a human decides'],
    [
      'expired',
      { status: 'expired', reason: null },
      'approval expired, so denied: a human decides',
    ],
    ['pending', { status: 'pending', reason: null }, 'waiting for approval: a human decides'],
  ] as const)('a call %s does not run', async (_name, state, reason) => {
    const { environment, agent } = await asking();
    const approver = new FixedApprover(state);
    const outcome = await environment.call(CALL, { approver });
    expect(outcome).toMatchObject({ blocked: true, reason, approval: { status: state.status } });
    expect(approver.asked).toHaveLength(1);
    expect(approver.asked[0]!.asks.map((ask) => ask.reason)).toEqual(['a human decides']);
    expect(agent.requestsOf('run_code')).toHaveLength(0);
  });

  it('an approved call runs, and a held call re-run keeps its id', async () => {
    const { environment, agent } = await asking();
    const approver = new FixedApprover({ status: 'approved', reason: null });
    const held = await environment.call(CALL, {
      approver: new FixedApprover({ status: 'pending', reason: null }),
    });
    const rerun = await environment.call(CALL, { approver, callId: held.call_id });
    expect(rerun).toMatchObject({ blocked: false, call_id: held.call_id });
    expect(approver.asked[0]!.callId).toBe(held.call_id);
    expect(execResultOf(rerun).stdout).toBe('ran\n');
    // An ask is not a plain allow: the code is not sent with the hook (docs/gates.md).
    expect(agent.requestsOf('run_code')).toHaveLength(1);
    // The next call gets an id of its own.
    const next = await environment.call(CALL, { approver });
    expect(next.call_id).not.toBe(held.call_id);
  });
});
