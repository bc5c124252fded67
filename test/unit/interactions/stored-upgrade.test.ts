// Interactions stored before the steps took the Gemini SDKs' shapes (docs/gemini-sdks.md) still read
// back from a state file: file tool steps under their new names, code results as text with the
// tool's object beside it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStoredInteraction } from '../../../src/interactions/stored-upgrade.js';
import { StateInteractionStore } from '../../../src/interactions/state-interaction-store.js';
import { SqlStateStore } from '../../../src/state/sql-state-store.js';

const hooks: never[] = [];
/** The steps of one interaction as hookbox stored them before the SDK shapes. */
const OLD_STEPS = [
  { type: 'user_input', content: [{ type: 'text', text: 'go' }] },
  { type: 'code_execution_call', id: 'c1', arguments: { code: 'echo hi' }, hooks },
  {
    type: 'code_execution_result',
    call_id: 'c1',
    result: { exit_code: 0, stdout: 'hi\n', stderr: '', timed_out: false },
    is_error: false,
    blocked: false,
    hooks,
  },
  { type: 'code_execution_call', id: 'c2', arguments: { code: 'rm -rf /' }, hooks },
  {
    type: 'code_execution_result',
    call_id: 'c2',
    result: 'Destructive command blocked by security gate.',
    is_error: true,
    blocked: true,
    hooks,
  },
  { type: 'tool_call', id: 'c3', name: 'read_file', arguments: { path: 'a.txt' }, hooks },
  {
    type: 'tool_result',
    call_id: 'c3',
    name: 'read_file',
    result: { content: 'x' },
    is_error: false,
    blocked: false,
    hooks,
  },
];
const OLD_BODY = {
  id: 'int_old',
  object: 'interaction',
  status: 'completed',
  agent: 'scripted',
  environment_id: 'env_old',
  steps: OLD_STEPS,
  output_text: '',
  created: 't',
  updated: 't',
};

describe('interactions stored in the shapes before the SDKs', () => {
  it('read back in today’s shapes', () => {
    const steps = parseStoredInteraction(OLD_BODY).steps;
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
      result: 'hi\n',
      structured_result: { exit_code: 0, stdout: 'hi\n' },
    });
    expect(steps[4]).toMatchObject({
      result: 'Destructive command blocked by security gate.',
      structured_result: null,
      blocked: true,
    });
    expect(steps[6]).toMatchObject({ name: 'read_file', result: { content: 'x' } });
  });

  it('leave today’s shapes as they are', () => {
    const today = parseStoredInteraction(OLD_BODY);
    expect(parseStoredInteraction(today)).toEqual(today);
  });

  it('read back from a state file that holds them', async () => {
    const state = await SqlStateStore.openFile(
      join(mkdtempSync(join(tmpdir(), 'hookbox-upgrade-')), 'state.db'),
    );
    await state.saveInteraction({
      id: 'int_old',
      environment_id: 'env_old',
      status: 'completed',
      body: { ...OLD_BODY, steps: [] },
      updated: 't',
      tenant: null,
    });
    await state.replaceInteractionSteps('int_old', OLD_STEPS);
    const read = await new StateInteractionStore(state).get('int_old');
    await state.close();
    expect(read?.steps[5]).toMatchObject({ type: 'function_call', name: 'read_file' });
    expect(read?.steps[2]).toMatchObject({ result: 'hi\n' });
  });
});
