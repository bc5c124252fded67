import { afterEach, describe, expect, it } from 'vitest';
import { HookboxError, UserError } from '../../../src/errors/index.js';
import type { DriverContext, ModelDriver } from '../../../src/interactions/driver.js';
import type { InteractionEvent } from '../../../src/interactions/schema.js';
import { InteractionService } from '../../../src/interactions/service.js';
import { HookRunner } from '../../../src/policies/runner.js';
import { FakeController, registryWith } from './fakes.js';
import {
  AUDIT_REQUEST,
  codeCall,
  PRIVACY_GATE_REQUEST,
  privacyFollowUp,
  scripted,
  SECURITY_GATE_REQUEST,
  toolCall,
} from './gemini-requests.js';

const services: InteractionService[] = [];

function setup(fake?: ModelDriver, options: { environmentTtlMs?: number } = {}) {
  const controller = new FakeController();
  const service = new InteractionService({
    controller: controller.asController,
    drivers: registryWith(fake),
    ...options,
  });
  services.push(service);
  return { controller, service };
}

afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

async function refusal(promise: Promise<unknown>): Promise<HookboxError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(HookboxError);
    return error as HookboxError;
  }
  throw new Error('accepted');
}

/** A driver that records its context and makes the calls it is given. */
function recordingDriver(
  calls: { name: string; args: Record<string, unknown> }[] = [],
  say?: string,
) {
  const seen: DriverContext[] = [];
  const driver: ModelDriver = {
    name: 'fake',
    async run(context) {
      seen.push(context);
      for (const call of calls) await context.callTool(call);
      if (say) context.emitModelOutput(say);
    },
  };
  return { driver, seen };
}

describe('the scripted agent', () => {
  it('runs the calls of the security gate example; the blocked one says why', async () => {
    const { controller, service } = setup();
    const events: InteractionEvent[] = [];
    const interaction = await service.create(
      scripted(SECURITY_GATE_REQUEST, codeCall('rm -rf /tmp/forbidden'), codeCall('echo hello')),
      (event) => events.push(event),
    );
    expect(interaction.status).toBe('completed');
    expect(interaction.steps.map((step) => step.type)).toEqual([
      'user_input',
      'code_execution_call',
      'code_execution_result',
      'code_execution_call',
      'code_execution_result',
    ]);
    expect(interaction.steps[0]).toEqual({
      type: 'user_input',
      content: [{ type: 'text', text: 'Run `rm -rf /tmp/forbidden` using code_execution.' }],
    });
    const [, call, blocked, , ran] = interaction.steps;
    expect(call).toMatchObject({
      type: 'code_execution_call',
      arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
      hooks: [{ group: 'fake-gate', outcome: 'deny', reason: 'no rm -rf here', duration_ms: 1.5 }],
    });
    expect(blocked).toEqual({
      type: 'code_execution_result',
      call_id: (call as { id: string }).id,
      result: 'no rm -rf here',
      is_error: true,
      blocked: true,
      hooks: [],
    });
    expect(ran).toMatchObject({ is_error: false, blocked: false, result: { stdout: 'ran\n' } });
    expect(controller.environment(interaction.environment_id).calls).toHaveLength(2);
    expect(events.map((event) => event.event_type)).toEqual([
      'interaction.created',
      'step',
      'step',
      'step',
      'step',
      'step',
      'interaction.complete',
    ]);
    expect(await service.interactionAt(interaction.id)).toEqual(interaction);
  });

  it('continues the privacy example in the same environment with previous_interaction_id', async () => {
    const { controller, service } = setup();
    const first = await service.create(
      scripted(
        PRIVACY_GATE_REQUEST,
        toolCall('read_file', { path: '/workspace/private/employees.json' }),
      ),
    );
    const second = await service.create(
      scripted(
        privacyFollowUp(first.environment_id, first.id),
        toolCall('read_file', { path: '/workspace/public/summary.json' }),
      ),
    );
    expect(second.environment_id).toBe(first.environment_id);
    expect(second.previous_interaction_id).toBe(first.id);
    expect(controller.created).toBe(1);
    expect(second.steps.map((s) => s.type)).toEqual(['user_input', 'tool_call', 'tool_result']);
    // Leaving the environment out continues in the previous one too.
    const withoutEnvironment: Partial<ReturnType<typeof privacyFollowUp>> = privacyFollowUp(
      first.environment_id,
      second.id,
    );
    delete withoutEnvironment.environment;
    const third = await service.create(
      scripted(withoutEnvironment as ReturnType<typeof privacyFollowUp>),
    );
    expect(third.environment_id).toBe(first.environment_id);
  });

  it('picks the vocabulary that has the tools the script calls', async () => {
    const { controller, service } = setup();
    const interaction = await service.create(
      scripted(PRIVACY_GATE_REQUEST, toolCall('read_file', { path: 'x' })),
    );
    expect(controller.environment(interaction.environment_id).vocabulary).toBe('2026-05');
  });
});

describe('a bad request makes no environment and names the field', () => {
  const cases: [string, unknown, string, string][] = [
    [
      'unknown field',
      { agent: 'scripted', input: 'x', environment: 'remote', strem: true },
      'invalid_argument',
      'strem',
    ],
    ['no environment', { agent: 'scripted', input: 'x' }, 'invalid_argument', 'environment'],
    [
      'unknown agent',
      { agent: 'gpt-9', input: 'x', environment: 'remote' },
      'invalid_argument',
      'agent',
    ],
    [
      'bad source target',
      {
        agent: 'scripted',
        input: 'x',
        environment: {
          type: 'remote',
          sources: [{ type: 'inline', target: 'etc/passwd', content: '' }],
        },
      },
      'invalid_sources',
      'environment.sources[0].target',
    ],
    [
      'bad hooks.json',
      {
        agent: 'scripted',
        input: 'x',
        environment: {
          type: 'remote',
          sources: [
            {
              type: 'inline',
              target: '.agents/hooks.json',
              content: '{"g": {"pre_tool_execution": [{"matcher": "*_file", "hooks": []}]}}',
            },
          ],
        },
      },
      'invalid_hooks_config',
      'environment.sources[0].content',
    ],
    [
      'an allowlist entry that is not a domain',
      scripted({
        ...AUDIT_REQUEST,
        environment: {
          ...AUDIT_REQUEST.environment,
          network: { allowlist: [{ domain: 'not a domain/' }] },
        },
      }),
      'invalid_argument',
      'environment.network.allowlist[0].domain',
    ],
    [
      'audit example without network (http hook)',
      scripted({
        ...AUDIT_REQUEST,
        environment: { type: 'remote', sources: AUDIT_REQUEST.environment.sources },
      }),
      'unsupported',
      'environment.sources[0].content',
    ],
    [
      'unknown environment',
      { agent: 'scripted', input: 'x', environment: 'env_nope' },
      'not_found',
      'environment',
    ],
    [
      'unknown previous interaction',
      { agent: 'scripted', input: 'x', previous_interaction_id: 'int_nope' },
      'not_found',
      'previous_interaction_id',
    ],
    [
      'scripted call with a bad argument',
      scripted(SECURITY_GATE_REQUEST, codeCall('ls'), {
        type: 'code_execution_call',
        arguments: { code: 1 },
      }),
      'invalid_tool_call',
      'input[2].arguments.code',
    ],
    [
      'scripted call of an unknown tool',
      scripted(SECURITY_GATE_REQUEST, toolCall('rm_file', { path: 'x' })),
      'invalid_tool_call',
      'input[1].name',
    ],
    [
      'code execution not among the tools',
      { agent: 'scripted', input: [codeCall('ls')], tools: [], environment: 'remote' },
      'invalid_tool_call',
      'input[0]',
    ],
    [
      'unsupported tool type',
      { agent: 'scripted', input: 'x', tools: [{ type: 'google_search' }], environment: 'remote' },
      'unsupported',
      'tools[0].type',
    ],
    [
      'calls for a model agent',
      { agent: 'fake', input: [codeCall('ls')], environment: 'remote' },
      'invalid_argument',
      'input[0].type',
    ],
    [
      'a model agent with no text',
      { agent: 'fake', input: [], environment: 'remote' },
      'invalid_argument',
      'input',
    ],
    [
      'gemini agent without its driver',
      { agent: 'antigravity-preview-05-2026', input: 'x', environment: 'remote' },
      'unsupported',
      'agent',
    ],
  ];

  it.each(cases)('%s', async (_name, body, code, field) => {
    const { controller, service } = setup(recordingDriver().driver);
    const error = await refusal(service.create(body));
    expect(error.code).toBe(code);
    expect(error.details.field).toBe(field);
    expect(error.message.startsWith(field)).toBe(true);
    expect(controller.created).toBe(0);
  });

  it('previous_interaction_id with another environment', async () => {
    const { controller, service } = setup();
    const first = await service.create({ agent: 'scripted', input: 'x', environment: 'remote' });
    const other = await service.create({ agent: 'scripted', input: 'x', environment: 'remote' });
    for (const environment of ['remote', other.environment_id, { type: 'remote' }]) {
      const error = await refusal(
        service.create({
          agent: 'scripted',
          input: 'x',
          environment,
          previous_interaction_id: first.id,
        }),
      );
      expect(error.message).toContain(`continues in its environment ${first.environment_id}`);
    }
    expect(controller.created).toBe(2);
  });
});

describe('environments', () => {
  it('an object with environment_id adds the sources to that environment', async () => {
    const { controller, service } = setup();
    const first = await service.create({ agent: 'scripted', input: 'x', environment: 'remote' });
    await service.create({
      agent: 'scripted',
      input: 'x',
      environment: {
        type: 'remote',
        environment_id: first.environment_id,
        sources: [{ type: 'inline', target: 'workspace/new.txt', content: 'new' }],
      },
    });
    expect(controller.created).toBe(1);
    expect(controller.environment(first.environment_id).added.map((s) => s.absolutePath)).toEqual([
      '/workspace/new.txt',
    ]);
  });

  it('"network": "disabled" and an empty allowlist are accepted', async () => {
    const { service } = setup();
    for (const network of ['disabled', { allowlist: [] }]) {
      const interaction = await service.create({
        agent: 'scripted',
        input: 'x',
        environment: { type: 'remote', network },
      });
      expect(interaction.status).toBe('completed');
    }
  });

  it('idle environments expire after the TTL, and a later request says so', async () => {
    const { controller, service } = setup(undefined, { environmentTtlMs: 20 });
    const interaction = await service.create({
      agent: 'scripted',
      input: 'x',
      environment: 'remote',
    });
    expect(await service.environmentInfo(interaction.environment_id)).toMatchObject({
      status: 'idle',
      hook_groups: ['fake-gate'],
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await service.sweep()).toEqual([interaction.environment_id]);
    expect(controller.environments.size).toBe(0);
    const error = await refusal(
      service.create({ agent: 'scripted', input: 'x', environment: interaction.environment_id }),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('expired');
  });

  it('an environment with an interaction running does not expire', async () => {
    let release!: () => void;
    const driver: ModelDriver = {
      name: 'fake',
      run: () => new Promise<void>((resolve) => (release = resolve)),
    };
    const { controller, service } = setup(driver, { environmentTtlMs: 1 });
    const running = service.create({ agent: 'fake', input: 'x', environment: 'remote' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await service.sweep()).toEqual([]);
    const [environment] = controller.listEnvironments();
    expect(await service.environmentInfo(environment!.id)).toMatchObject({
      status: 'active',
      expires_at: null,
    });
    release();
    await running;
  });

  it('delete removes it; then it is a 404 that says it was deleted', async () => {
    const { service } = setup();
    const interaction = await service.create({
      agent: 'scripted',
      input: 'x',
      environment: 'remote',
    });
    await service.deleteEnvironment(interaction.environment_id);
    const error = await refusal(
      Promise.resolve().then(() => service.environmentInfo(interaction.environment_id)),
    );
    expect(error.message).toContain('deleted');
  });
});

describe('model drivers', () => {
  it('get the tools, the history and their own output into the interaction', async () => {
    const { driver, seen } = recordingDriver(
      [{ name: 'code_execution', args: { code: 'ls' } }],
      'done.',
    );
    const { service } = setup(driver);
    const first = await service.create({
      agent: 'fake',
      input: [{ type: 'text', text: 'list files' }],
      tools: [{ type: 'code_execution' }],
      environment: 'remote',
      system_instruction: 'be brief',
    });
    expect(first.output_text).toBe('done.');
    expect(first.steps.at(-1)).toEqual({
      type: 'model_output',
      content: [{ type: 'text', text: 'done.' }],
    });
    expect(seen[0]!.tools.map((tool) => tool.name)).toContain('code_execution');
    expect(seen[0]!.tools[0]!.parameters).not.toHaveProperty('$schema');
    expect(seen[0]!.systemInstruction).toBe('be brief');
    await service.create({ agent: 'fake', input: 'again', previous_interaction_id: first.id });
    expect(seen[1]!.history.map((turn) => turn.role)).toEqual(['user', 'tool_call', 'model']);
    const report = seen[1]!.history[1]!;
    expect(report.role === 'tool_call' && report.report.tool_call).toEqual({
      name: 'code_execution',
      args: { code: 'ls' },
    });
  });

  it("a model's malformed or disabled call is an error result, not a failure", async () => {
    const { driver } = recordingDriver([
      { name: 'code_execution', args: { cmd: 'ls' } },
      { name: 'code_execution', args: { code: 'ls' } },
    ]);
    const { service } = setup(driver);
    const interaction = await service.create({
      agent: 'fake',
      input: 'x',
      tools: [],
      environment: 'remote',
    });
    expect(interaction.status).toBe('completed');
    const results = interaction.steps.filter((step) => step.type === 'code_execution_result');
    expect(results).toHaveLength(2);
    for (const result of results) expect(result).toMatchObject({ is_error: true, blocked: false });
    expect(results[1]!.result).toContain('not enabled');
  });

  it('a driver that throws ends the interaction failed, with its steps kept', async () => {
    const driver: ModelDriver = {
      name: 'fake',
      async run(context) {
        await context.callTool({ name: 'code_execution', args: { code: 'ls' } });
        throw new UserError('invalid_argument', 'model said no');
      },
    };
    const { service } = setup(driver);
    const interaction = await service.create({ agent: 'fake', input: 'x', environment: 'remote' });
    expect(interaction.status).toBe('failed');
    expect(interaction.error).toEqual({ code: 'invalid_argument', message: 'model said no' });
    expect(interaction.steps).toHaveLength(3);
    expect((await service.interactionAt(interaction.id)).status).toBe('failed');
  });
});

it('close waits for running interactions, then refuses new ones', async () => {
  let release!: () => void;
  const driver: ModelDriver = {
    name: 'fake',
    run: () => new Promise<void>((resolve) => (release = resolve)),
  };
  const { controller, service } = setup(driver);
  const running = service.create({ agent: 'fake', input: 'x', environment: 'remote' });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const closing = service.close();
  let closed = false;
  void closing.then(() => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(closed).toBe(false);
  release();
  await closing;
  expect((await running).status).toBe('completed');
  expect(controller.environments.size).toBe(0);
  const error = await refusal(
    service.create({ agent: 'scripted', input: 'x', environment: 'remote' }),
  );
  expect(error.code).toBe('engine_unavailable');
});

describe('controller hooks', () => {
  it('an interaction_start deny ends the interaction failed before the driver runs', async () => {
    const { driver, seen } = recordingDriver();
    const { controller, service } = setup(driver);
    const ends: string[] = [];
    controller.hookRunner = new HookRunner([
      {
        name: 'closed',
        onInteractionStart: () => ({ decision: 'deny', reason: 'closed today' }),
        onInteractionEnd: (context) => void ends.push(context.interactionId),
      },
    ]);
    const interaction = await service.create({ agent: 'fake', input: 'x', environment: 'remote' });
    expect(interaction.status).toBe('failed');
    expect(interaction.error).toEqual({
      code: 'interaction_refused',
      message: 'a controller hook refused the interaction: closed today',
    });
    expect(seen).toHaveLength(0);
    expect(ends).toEqual([interaction.id]);
  });
});
