// background: true through the Python SDK: answered at once, followed with get, cancelled (the
// running call is killed and recorded, the next never runs), deleted.
import { describe, expect, it } from 'vitest';
import { useServer, type StepBody } from './api-helpers.js';
import { runPythonScenario } from './sdk-helpers.js';

const server = useServer();

describe('the Python SDK, background', () => {
  it('answers in_progress, cancel stops the running call, delete forgets it', async () => {
    const { result, stderr } = await runPythonScenario<{
      first: string;
      cancelled: string;
      steps: StepBody[];
      gone: unknown;
    }>(server(), 'background');
    expect(stderr).toBe('');
    expect(result.first).toBe('in_progress');
    expect(result.cancelled).toBe('cancelled');
    const types = result.steps.map((step) => step.type);
    // The sleeping call ran and was killed: recorded with its output so far; "after" never ran.
    expect(types).toEqual(['code_execution_call', 'code_execution_result']);
    expect(result.steps[1]?.result).toContain('started');
    expect(result.steps[1]?.result).not.toContain('never');
    expect(String(result.gone)).toMatch(/404|NotFound|not_found/i);
  });
});
