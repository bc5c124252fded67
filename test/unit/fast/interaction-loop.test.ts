// The interaction loop (src/interactions/) through a real Controller over the in-memory agent
// (docs/testing.md, "The fast tier"): a model's tool calls meet the environment's gate, a blocked
// call is the model's error result, and an ask pauses the interaction until it is approved or
// denied, in milliseconds.
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelDriver } from '../../../src/interactions/driver.js';
import { InteractionService } from '../../../src/interactions/service.js';
import type { MemoryHook } from '../fakes/memory-agent.js';
import { memoryController } from '../fakes/memory-controller.js';
import { registryWith } from '../interactions/fakes.js';

/** The gate: denies `rm`, asks for `deploy`, allows anything else. */
const gate: MemoryHook = ({ stdin }) => {
  const code = String(
    (JSON.parse(stdin) as { tool_call: { args: { code?: string } } }).tool_call.args.code,
  );
  if (code.includes('rm '))
    return { stdout: JSON.stringify({ decision: 'deny', reason: 'no rm' }) };
  if (code.includes('deploy'))
    return { stdout: JSON.stringify({ decision: 'ask', reason: `a human decides: ${code}` }) };
  return { stdout: '{"decision":"allow"}' };
};

const sources = [
  {
    type: 'inline' as const,
    target: '.agents/hooks.json',
    content: JSON.stringify({
      gate: {
        pre_tool_execution: [
          { matcher: 'code_execution', hooks: [{ type: 'command', command: 'gate', timeout: 2 }] },
        ],
      },
    }),
  },
];

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function service(driver?: ModelDriver) {
  const made = await memoryController({ hooks: { gate } });
  const interactions = new InteractionService({
    controller: made.controller,
    drivers: registryWith(driver),
  });
  closing.push(made.close, () => interactions.close());
  return { ...made, interactions };
}

type Step = { type: string; blocked?: boolean; result?: unknown; call_id?: string };
const results = (steps: readonly Step[]) =>
  steps.filter((step) => step.type === 'code_execution_result');

describe('the interaction loop over the in-memory agent', () => {
  it("runs a model's allowed call and returns a denied one as its error", async () => {
    const driver: ModelDriver = {
      name: 'fake',
      async run(context) {
        const ran = await context.callTool({ name: 'code_execution', args: { code: 'echo hi' } });
        const refused = await context.callTool({
          name: 'code_execution',
          args: { code: 'rm -rf /workspace' },
        });
        context.emitModelOutput(`${ran.is_error} ${refused.is_error}`);
      },
    };
    const { interactions, client } = await service(driver);
    const done = await interactions.create({
      agent: 'fake',
      input: 'go',
      tools: [{ type: 'code_execution' }],
      environment: { type: 'remote', sources },
    });
    expect(done.status).toBe('completed');
    expect(done.output_text).toBe('false true');
    const [ran, refused] = results(done.steps);
    expect(ran).toMatchObject({ blocked: false });
    expect(refused).toMatchObject({ blocked: true });
    expect(JSON.stringify(refused)).toContain('no rm');
    const agent = client.onlyAgent;
    expect(agent.agents.has('hooks.json')).toBe(true);
    expect(agent.requestsOf('run_hook')).toHaveLength(2);
  });

  it.each([
    [true, { blocked: false }],
    [false, { blocked: true }],
  ])('pauses on ask; approve %s decides whether the call runs', async (approve, expected) => {
    const { interactions, client } = await service();
    const paused = await interactions.create({
      agent: 'scripted',
      input: [
        { type: 'code_execution_call', arguments: { code: 'echo deploy', language: 'bash' } },
      ],
      environment: { type: 'remote', sources },
    });
    expect(paused.status).toBe('requires_action');
    const pending = paused.pending_approvals![0]!;
    expect(pending).toMatchObject({
      tool_call: { name: 'code_execution', args: { code: 'echo deploy' } },
      status: 'pending',
    });
    expect(client.onlyAgent.requestsOf('run_code')).toHaveLength(0);
    const answered = await interactions.create({
      agent: 'scripted',
      previous_interaction_id: paused.id,
      input: [{ type: 'approval', call_id: pending.call_id, approve }],
    });
    expect(answered.status).toBe('completed');
    expect(results(answered.steps as Step[]).at(-1)).toMatchObject({
      ...expected,
      call_id: pending.call_id,
    });
    expect(client.onlyAgent.requestsOf('run_code')).toHaveLength(approve ? 1 : 0);
  });
});
