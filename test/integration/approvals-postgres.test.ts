// With --state-url (PostgreSQL), a call waiting for its approver is stored like every other record
// (docs/kubernetes.md, Several replicas; docs/dialects.md, "ask"): a second replica sees the pending
// approval and takes the answer, a remembered approval holds on every replica, and a `kill -9` of
// the replica that asked loses nothing. Real PostgreSQL, real `hookbox serve` processes, real gates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookbox } from '../../src/client/index.js';
import { freePort } from './postgres.js';
import { startReplicas, type Replicas } from './replicas.js';

const KEY = 'approvals-pg-test-key';
let replicas: Replicas;

beforeAll(async () => {
  replicas = await startReplicas(KEY);
});
afterAll(async () => {
  await replicas?.stop();
});

const serve = (port: number) => replicas.serve(port);

const ASK_GATE = `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
print(json.dumps({"decision": "ask", "reason": "needs a human: " + code} if "ask" in code else {"decision": "allow"}))
`;
const sources = [
  {
    type: 'inline' as const,
    target: '.agents/hooks.json',
    content: JSON.stringify({
      gate: {
        pre_tool_execution: [
          {
            matcher: 'code_execution',
            hooks: [{ type: 'command', command: 'python3 /.agents/ask.py' }],
          },
        ],
      },
    }),
  },
  { type: 'inline' as const, target: '.agents/ask.py', content: ASK_GATE },
];
const call = (code: string) => ({
  type: 'code_execution_call' as const,
  arguments: { code, language: 'bash' },
});
const approval = (call_id: string) => ({ type: 'approval' as const, call_id, approve: true });
type Step = { type: string; blocked?: boolean; structured_result?: { stdout?: string } | null };
const stdoutOf = (steps: unknown) =>
  (steps as Step[]).filter((step) => step.type === 'code_execution_result').at(-1)
    ?.structured_result?.stdout;

describe('approvals with --state-url', () => {
  it('a second replica answers a pending approval; a restart keeps one; a remembered approval holds everywhere', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    let a = await serve(portA);
    await serve(portB);
    const clientA = new Hookbox({ baseUrl: `http://127.0.0.1:${portA}`, apiKey: KEY });
    const clientB = new Hookbox({ baseUrl: `http://127.0.0.1:${portB}`, apiKey: KEY });

    // Asked on A…
    const paused = await clientA.interactions.create({
      agent: 'scripted',
      input: [call('echo ask-on-a')],
      environment: { type: 'remote', sources },
    });
    expect(paused.status).toBe('requires_action');
    const pending = paused.pending_approvals![0]!;
    const environment = paused.environment_id;

    // …seen and answered on B.
    expect(await clientB.interactions.get(paused.id)).toMatchObject({
      status: 'requires_action',
      pending_approvals: [{ call_id: pending.call_id, status: 'pending' }],
    });
    const approvedOnB = await clientB.interactions.create({
      agent: 'scripted',
      previous_interaction_id: paused.id,
      input: [approval(pending.call_id)],
    });
    expect(approvedOnB.status).toBe('completed');
    expect(stdoutOf(approvedOnB.steps)).toBe('ask-on-a\n');
    // A reads the answer B took.
    expect(await clientA.interactions.get(paused.id)).toMatchObject({
      status: 'completed',
      pending_approvals: [{ status: 'approved' }],
    });
    // The remembered approval (same hook, same call) holds on A too: no second ask.
    const again = await clientA.interactions.create({
      agent: 'scripted',
      environment,
      input: [call('echo ask-on-a')],
    });
    expect(again.status).toBe('completed');
    expect(stdoutOf(again.steps)).toBe('ask-on-a\n');

    // Asked on A, then A is killed and started again: the approval is still there.
    const waiting = await clientA.interactions.create({
      agent: 'scripted',
      environment,
      input: [call('echo ask-before-restart')],
    });
    expect(waiting.status).toBe('requires_action');
    a.kill('SIGKILL');
    await new Promise((wait) => a.once('exit', wait));
    a = await serve(portA);
    expect(await clientA.interactions.get(waiting.id)).toMatchObject({
      status: 'requires_action',
      pending_approvals: [{ status: 'pending' }],
    });
    // The answer goes to the replica that holds the environment now: B may have taken it on
    // after A died, or the restarted A re-attached it (docs/kubernetes.md, Several replicas).
    const answer = {
      agent: 'scripted',
      previous_interaction_id: waiting.id,
      input: [approval(waiting.pending_approvals![0]!.call_id)],
    };
    const resumed = await clientA.interactions
      .create(answer)
      .catch(() => clientB.interactions.create(answer));
    // The whole interaction in the message when it did not complete (its error says why).
    expect(resumed, JSON.stringify(resumed)).toMatchObject({ status: 'completed' });
    expect(stdoutOf(resumed.steps)).toBe('ask-before-restart\n');
    await clientB.environments.delete(environment);
  });
});
