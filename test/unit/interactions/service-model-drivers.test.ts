// The interaction service with model drivers (tools, history, output; malformed calls; a driver
// that throws) and controller hooks that refuse an interaction. Shared helpers: service-helpers.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import type { ModelDriver } from '../../../src/interactions/driver.js';
import { HookRunner } from '../../../src/hooks/controller-hooks/runner.js';
import { closeServices, recordingDriver, setup } from './service-helpers.js';

afterEach(closeServices);

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
