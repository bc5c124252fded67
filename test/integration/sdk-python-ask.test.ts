// `ask` through the Python SDK: requires_action, then the approval as the next interaction's
// input (a function_result step, the only form the SDK sends), and the call runs.
import { describe, expect, it } from 'vitest';
import { useServer, type StepBody } from './api-helpers.js';
import { runPythonScenario } from './sdk-helpers.js';

const server = useServer();

describe('the Python SDK, ask', () => {
  it('requires_action, then a function_result approving the call runs it', async () => {
    const { result, stderr } = await runPythonScenario<{
      waiting: string;
      answered: string;
      call_id: string;
      steps: StepBody[];
    }>(server(), 'ask');
    expect(stderr).toBe('');
    expect(result.waiting).toBe('requires_action');
    expect(result.answered).toBe('completed');
    const ran = result.steps.find(
      (step) => step.type === 'code_execution_result' && step.call_id === result.call_id,
    );
    expect(ran).toMatchObject({ result: 'approved run\n', is_error: false });
  });
});
