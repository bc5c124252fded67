// The interaction service with the scripted agent: the Gemini hooks page examples, continuing with
// previous_interaction_id, the vocabulary. Shared helpers: service-helpers.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/interactions/prepared-interaction.js';
import {
  codeCall,
  PRIVACY_GATE_REQUEST,
  privacyFollowUp,
  scripted,
  SECURITY_GATE_REQUEST,
  toolCall,
} from './gemini-requests.js';
import { closeServices, setup } from './service-helpers.js';

afterEach(closeServices);

describe('the scripted agent', () => {
  it('runs the calls of the security gate example; the blocked one says why', async () => {
    const { controller, service } = setup();
    const events: RunEvent[] = [];
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
      structured_result: null,
      is_error: true,
      blocked: true,
      hooks: [],
    });
    expect(ran).toMatchObject({
      is_error: false,
      blocked: false,
      result: 'ran\n',
      structured_result: { stdout: 'ran\n' },
    });
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
    expect(second.steps.map((s) => s.type)).toEqual([
      'user_input',
      'function_call',
      'function_result',
    ]);
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
