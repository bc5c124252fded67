// The JavaScript SDK (@google/genai), unchanged, against a real `hookbox serve` with real
// containers: SDK-shaped input, the steps as the SDK types them, get, labels, store: false.
import { describe, expect, it } from 'vitest';
import { useServer } from './api-helpers.js';
import { jsClient, SECURITY_GATE_SOURCES } from './sdk-helpers.js';

const server = useServer();

describe('the JavaScript SDK', () => {
  it('runs a step list through the gates; the steps are the SDK’s; get finds it', async () => {
    const ai = jsClient(server());
    const interaction = await ai.interactions.create({
      agent: 'scripted',
      input: [
        { type: 'user_input', content: [{ type: 'text', text: 'Clean up, then list.' }] },
        {
          type: 'code_execution_call',
          id: 'mine-1',
          arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
        },
        {
          type: 'code_execution_call',
          id: 'mine-2',
          arguments: { code: 'echo hi; echo oops >&2', language: 'bash' },
        },
        {
          type: 'function_call',
          id: 'mine-3',
          name: 'write_file',
          arguments: { path: 'a.txt', content: 'A' },
        },
      ],
      tools: [{ type: 'code_execution' }],
      environment: { type: 'remote', sources: SECURITY_GATE_SOURCES },
      labels: { team: 'sdk' },
    });
    expect(interaction.status).toBe('completed');
    expect(interaction.environment_id).toMatch(/^env_/);
    expect(interaction.labels).toEqual({ team: 'sdk' });
    expect(interaction.usage).toMatchObject({ total_tokens: 0 });
    const steps = interaction.steps;
    expect(steps.map((step) => step.type)).toEqual([
      'user_input',
      'code_execution_call',
      'code_execution_result',
      'code_execution_call',
      'code_execution_result',
      'function_call',
      'function_result',
    ]);
    expect(steps[2]).toMatchObject({
      result: 'Destructive command blocked by security gate.',
      is_error: true,
      blocked: true,
    });
    // The SDK types code_execution_result.result as a string: what the code printed.
    expect(steps[4]).toMatchObject({
      result: 'hi\noops\n',
      is_error: false,
      structured_result: { exit_code: 0, stdout: 'hi\n', stderr: 'oops\n' },
    });
    expect(steps[5]).toMatchObject({ name: 'write_file', arguments: { path: 'a.txt' } });
    expect(steps[6]).toMatchObject({ name: 'write_file', is_error: false });
    // hookbox gives each call its own id; the call and its result agree.
    const call = steps[3] as { id: string };
    expect(call.id).not.toBe('mine-2');
    expect(steps[4]).toMatchObject({ call_id: call.id });

    const got = await ai.interactions.get(interaction.id);
    expect(got.steps).toEqual(interaction.steps);
    expect(got.status).toBe('completed');
  });

  it('store: false answers, then forgets the interaction', async () => {
    const ai = jsClient(server());
    const interaction = await ai.interactions.create({
      agent: 'scripted',
      input: 'just text',
      environment: 'remote',
      store: false,
    });
    expect(interaction.status).toBe('completed');
    expect(interaction.steps).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'just text' }] },
    ]);
    await expect(ai.interactions.get(interaction.id)).rejects.toMatchObject({ status: 404 });
  });
});
