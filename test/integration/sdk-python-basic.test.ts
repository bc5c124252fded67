// The Python SDK (google-genai in .venv-sdk), unchanged, against a real `hookbox serve` with real
// containers: each scenario of test/sdk/interactions_sdk.py, and no warning on stderr.
import { describe, expect, it } from 'vitest';
import { useServer, type StepBody } from './api-helpers.js';
import { runPythonScenario } from './sdk-helpers.js';

const server = useServer();

describe('the Python SDK', () => {
  it('a step list through the gates: typed steps, get, labels, usage', async () => {
    const { result, stderr } = await runPythonScenario<{
      status: string;
      step_classes: string[];
      steps: StepBody[];
      labels: Record<string, string>;
      usage: Record<string, number>;
      got_status: string;
      got_steps: number;
    }>(server(), 'basic');
    expect(stderr).toBe('');
    expect(result.status).toBe('completed');
    expect(result.step_classes).toEqual([
      'UserInputStep',
      'CodeExecutionCallStep',
      'CodeExecutionResultStep',
      'CodeExecutionCallStep',
      'CodeExecutionResultStep',
    ]);
    expect(result.steps[2]).toMatchObject({
      result: 'Destructive command blocked by security gate.',
      is_error: true,
    });
    expect(result.steps[4]).toMatchObject({ result: 'hello from python\n', is_error: false });
    expect(result.labels).toEqual({ team: 'sdk' });
    expect(result.usage).toMatchObject({ total_tokens: 0 });
    expect([result.got_status, result.got_steps]).toEqual(['completed', 5]);
  });
});
