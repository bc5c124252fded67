import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { Hookbox, HookboxApiError } from '../../src/client/index.js';
import { auditLogPath, readAuditLog } from '../../src/record/audit-log.js';

/**
 * `ask` over HTTP (docs/dialects.md, "ask"): an interaction pauses with `requires_action`, is
 * continued with an approval item, survives a `kill -9` of the controller in between, and an
 * unanswered approval expires as denied.
 */
const KEY = 'approvals-test-key';
const children: ChildProcess[] = [];
afterAll(() => children.forEach((child) => child.kill('SIGKILL')));

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function serve(
  stateFile: string,
  home: string,
  port: number,
  env: Record<string, string> = {},
) {
  const child = spawn(
    'node',
    [resolve('bin/hookbox.js'), 'serve', '--port', String(port), '--state-file', stateFile],
    {
      env: {
        ...process.env,
        HOOKBOX_API_KEYS: KEY,
        HOOKBOX_HOME: home,
        HOOKBOX_LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  await new Promise<void>((done, fail) => {
    createInterface({ input: child.stderr }).on(
      'line',
      (line) => line.includes('listening on') && done(),
    );
    child.once('exit', (code) => fail(new Error(`hookbox serve exited ${code}`)));
  });
  return child;
}

const ASK_GATE = `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
if "ask" in code:
    print(json.dumps({"decision": "ask", "reason": "needs a human: " + code}))
else:
    print(json.dumps({"decision": "allow"}))
`;
const FORCE_GATE = `import json, sys
line = json.load(sys.stdin)["toolCall"]["args"]["CommandLine"]
print(json.dumps({"decision": "force_ask", "reason": "always asks"} if "force" in line else {"decision": "allow"}))
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
            hooks: [{ type: 'command', command: 'python3 /.agents/hooks-scripts/ask.py' }],
          },
        ],
      },
      agy: {
        dialect: 'antigravity-cli',
        PreToolUse: [
          {
            matcher: 'run_command',
            hooks: [{ type: 'command', command: 'python3 /.agents/hooks-scripts/force.py' }],
          },
        ],
      },
    }),
  },
  { type: 'inline' as const, target: '.agents/hooks-scripts/ask.py', content: ASK_GATE },
  { type: 'inline' as const, target: '.agents/hooks-scripts/force.py', content: FORCE_GATE },
];

const call = (code: string) => ({
  type: 'code_execution_call' as const,
  arguments: { code, language: 'bash' },
});
const approval = (call_id: string, approve: boolean) => ({
  type: 'approval' as const,
  call_id,
  approve,
});
type Step = {
  type: string;
  result?: unknown;
  blocked?: boolean;
  id?: string;
  call_id?: string;
  hooks?: { outcome: string }[];
};
const resultOf = (steps: Step[]) =>
  steps.filter((step) => step.type === 'code_execution_result').at(-1)!;

describe('ask over HTTP', () => {
  it('pauses, continues on approve or deny, caches ask but not force_ask, survives a restart, expires as denied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-approvals-'));
    const stateFile = join(dir, 'state.sqlite');
    const port = await freePort();
    const client = new Hookbox({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY });
    const first = await serve(stateFile, dir, port);

    // Pause: the call waits; the interaction ends requires_action with the pending approval.
    const paused = await client.interactions.create({
      agent: 'scripted',
      input: [call('echo ask-me')],
      environment: { type: 'remote', sources },
    });
    expect(paused.status).toBe('requires_action');
    const pending = paused.pending_approvals![0]!;
    expect(pending).toMatchObject({
      tool_call: { name: 'code_execution', args: { code: 'echo ask-me' } },
      hooks: [{ group: 'gate', reason: 'needs a human: echo ask-me', force: false }],
      status: 'pending',
    });
    expect(Date.parse(pending.expires_at)).toBeGreaterThan(Date.now());
    const env = paused.environment_id;
    expect(paused.steps.at(-1)).toMatchObject({
      type: 'code_execution_call',
      id: pending.call_id,
      hooks: [{ outcome: 'ask' }, { outcome: 'allow', dialect: 'antigravity-cli' }],
    });

    // Approve: the call runs, under its call id; the paused interaction shows the answer.
    const approved = await client.interactions.create({
      agent: 'scripted',
      previous_interaction_id: paused.id,
      input: [approval(pending.call_id, true)],
    });
    expect(approved.status).toBe('completed');
    expect(resultOf(approved.steps as Step[])).toMatchObject({
      call_id: pending.call_id,
      blocked: false,
      structured_result: { stdout: 'ask-me\n' },
    });
    expect(await client.interactions.get(paused.id)).toMatchObject({
      status: 'completed',
      pending_approvals: [{ status: 'approved' }],
    });

    // An approved ask is cached for the same hook and call: asking again is satisfied at once.
    const cached = await client.interactions.create({
      agent: 'scripted',
      previous_interaction_id: approved.id,
      input: [call('echo ask-me')],
    });
    expect(cached.status).toBe('completed');
    expect(resultOf(cached.steps as Step[])).toMatchObject({
      blocked: false,
      structured_result: { stdout: 'ask-me\n' },
    });

    // force_ask: approved once, asked again the next time; then denied.
    const forced = await client.interactions.create({
      agent: 'scripted',
      environment: env,
      input: [call('echo force')],
    });
    expect(forced.status).toBe('requires_action');
    expect(forced.pending_approvals![0]!.hooks).toEqual([
      {
        group: 'agy',
        handler: 'python3 /.agents/hooks-scripts/force.py',
        reason: 'always asks',
        force: true,
      },
    ]);
    const forcedOk = await client.interactions.create({
      agent: 'scripted',
      previous_interaction_id: forced.id,
      input: [approval(forced.pending_approvals![0]!.call_id, true)],
    });
    expect(resultOf(forcedOk.steps as Step[])).toMatchObject({
      blocked: false,
      structured_result: { stdout: 'force\n' },
    });
    const forcedAgain = await client.interactions.create({
      agent: 'scripted',
      environment: env,
      input: [call('echo force')],
    });
    expect(forcedAgain.status).toBe('requires_action');
    const denied = await client.interactions.create({
      agent: 'scripted',
      previous_interaction_id: forcedAgain.id,
      input: [approval(forcedAgain.pending_approvals![0]!.call_id, false)],
    });
    expect(denied.status).toBe('completed');
    expect(resultOf(denied.steps as Step[])).toMatchObject({
      blocked: true,
      result: 'approval denied: always asks',
    });

    // Bad input: an approval for a call that does not wait, or one already answered.
    for (const [item, rule] of [
      [approval('call_nope', true), /no call "call_nope" waits for approval/],
      [approval(forcedAgain.pending_approvals![0]!.call_id, true), /was already denied/],
    ] as const) {
      const error = await client.interactions
        .create({ agent: 'scripted', previous_interaction_id: forcedAgain.id, input: [item] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HookboxApiError);
      expect(error).toMatchObject({ status: 400, details: { field: 'input[0].call_id' } });
      expect((error as Error).message).toMatch(rule);
    }

    // A pending approval survives a kill -9 of the controller.
    const waiting = await client.interactions.create({
      agent: 'scripted',
      environment: env,
      input: [call('echo ask-after-restart')],
    });
    expect(waiting.status).toBe('requires_action');
    first.kill('SIGKILL');
    await new Promise((wait) => first.once('exit', wait));
    const second = await serve(stateFile, dir, port, { HOOKBOX_APPROVAL_TTL_MS: '1500' });
    try {
      expect(await client.interactions.get(waiting.id)).toMatchObject({
        status: 'requires_action',
        pending_approvals: [{ status: 'pending' }],
      });
      // One more, under a short time to live, to expire.
      const late = await client.interactions.create({
        agent: 'scripted',
        environment: env,
        input: [call('echo ask-too-late')],
      });
      expect(late.status).toBe('requires_action');
      const resumed = await client.interactions.create({
        agent: 'scripted',
        previous_interaction_id: waiting.id,
        input: [approval(waiting.pending_approvals![0]!.call_id, true)],
      });
      expect(resumed.status).toBe('completed');
      expect(resultOf(resumed.steps as Step[])).toMatchObject({
        blocked: false,
        structured_result: { stdout: 'ask-after-restart\n' },
      });

      // It expires 1.5 s after it was asked (HOOKBOX_APPROVAL_TTL_MS above): wait for that, not
      // for a fixed time.
      await expect
        .poll(() => client.interactions.get(late.id), { timeout: 30_000, interval: 100 })
        .toMatchObject({ pending_approvals: [{ status: 'expired' }] });
      const expired = await client.interactions.create({
        agent: 'scripted',
        previous_interaction_id: late.id,
        input: [approval(late.pending_approvals![0]!.call_id, true)],
      });
      expect(resultOf(expired.steps as Step[])).toMatchObject({
        blocked: true,
        result: 'approval expired, so denied: needs a human: echo ask-too-late',
      });
      // Every answer is in the environment's audit log, with the asking hook runs.
      const log = readAuditLog(auditLogPath(dir, env));
      expect(
        log
          .filter((entry) => entry.kind === 'approval')
          .map((entry) => (entry as { status: string }).status),
      ).toEqual(['approved', 'approved', 'denied', 'approved', 'expired']);
      expect(
        log.some(
          (entry) => entry.kind === 'hook' && entry.outcome === 'ask' && entry.force === true,
        ),
      ).toBe(true);
      await client.environments.delete(env);
    } finally {
      second.kill('SIGTERM');
      await new Promise((wait) => second.once('exit', wait));
    }
  });
});
