import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import { parseInteractionRequest } from '../../../src/interactions/request.js';
import {
  AUDIT_REQUEST,
  codeCall,
  PRIVACY_GATE_REQUEST,
  privacyFollowUp,
  scripted,
  SECURITY_GATE_REQUEST,
  toolCall,
} from './gemini-requests.js';

function refusal(body: unknown): UserError {
  try {
    parseInteractionRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error('the request was accepted');
}

describe('the request schema accepts the Gemini hooks page bodies unchanged', () => {
  it.each([
    ['security gate', SECURITY_GATE_REQUEST],
    ['privacy gate', PRIVACY_GATE_REQUEST],
    ['privacy gate, second interaction', privacyFollowUp('env_x', 'int_y')],
    ['audit logging', AUDIT_REQUEST],
  ])('%s', (_name, body) => {
    expect(parseInteractionRequest(body)).toEqual(body);
  });

  it('accepts the SDK forms: a string input and environment "remote"', () => {
    const body = { agent: 'scripted', input: 'hello', environment: 'remote' };
    expect(parseInteractionRequest(body)).toEqual(body);
  });

  it('accepts scripted calls after the text', () => {
    const body = scripted(
      SECURITY_GATE_REQUEST,
      codeCall('rm -rf /tmp/forbidden'),
      toolCall('read_file', { path: 'x' }),
    );
    expect(parseInteractionRequest(body).input).toHaveLength(3);
  });

  it('accepts stream and system_instruction', () => {
    const body = {
      agent: 'scripted',
      input: 'x',
      environment: 'remote',
      stream: true,
      system_instruction: 'be brief',
    };
    expect(parseInteractionRequest(body)).toEqual(body);
  });
});

describe('bad requests name the field', () => {
  it('an unknown top-level field, with the one it resembles', () => {
    const error = refusal({ agent: 'scripted', input: 'x', enviroment: 'remote' });
    expect(error.code).toBe('invalid_argument');
    expect(error.details.field).toBe('enviroment');
    expect(error.message).toMatch(
      /^enviroment: unknown field "enviroment" \(did you mean "environment"\?\)/,
    );
  });

  it('an unknown field of the environment object', () => {
    const error = refusal({
      agent: 'scripted',
      input: 'x',
      environment: { type: 'remote', source: [] },
    });
    expect(error.details.field).toBe('environment.source');
    expect(error.message).toContain('did you mean "sources"?');
  });

  it('an unknown field of a source, before the missing one it misspells', () => {
    const error = refusal({
      agent: 'scripted',
      input: 'x',
      environment: {
        type: 'remote',
        sources: [{ type: 'inline', target: 'workspace/a', contnt: '' }],
      },
    });
    expect(error.details.field).toBe('environment.sources[0].contnt');
    expect(error.message).toContain('did you mean "content"?');
    expect(error.details.problems).toContainEqual({
      field: 'environment.sources[0].content',
      message: 'is required',
    });
  });

  it('wrong types', () => {
    expect(refusal({ agent: 5, input: 'x', environment: 'remote' }).message).toBe(
      'agent: must be a string (got number)',
    );
    expect(
      refusal({ agent: 'scripted', input: 'x', environment: 'remote', stream: 'yes' }).details
        .field,
    ).toBe('stream');
    expect(refusal({ agent: 'scripted', input: 7, environment: 'remote' }).message).toMatch(
      /^input: must be a string, a text part/,
    );
    expect(refusal({ agent: 'scripted', input: 'x', environment: 5 }).message).toMatch(
      /^environment: must be "remote", an environment id/,
    );
  });

  it('a missing field', () => {
    expect(refusal({ agent: 'scripted', environment: 'remote' }).message).toBe(
      'input: is required',
    );
  });

  it('an input item of an unknown type, and a bad field inside a known one', () => {
    expect(
      refusal({ agent: 'scripted', input: [{ type: 'image' }], environment: 'remote' }).details
        .field,
    ).toBe('input[0].type');
    const error = refusal({
      agent: 'scripted',
      input: [{ type: 'text', text: 1 }],
      environment: 'remote',
    });
    expect(error.message).toBe('input[0].text: must be a string (got number)');
    expect(
      refusal({
        agent: 'scripted',
        input: [{ type: 'code_execution_call', arguments: 'ls' }],
        environment: 'remote',
      }).details.field,
    ).toBe('input[0].arguments');
  });

  it('a source of another type', () => {
    const error = refusal({
      agent: 'scripted',
      input: 'x',
      environment: {
        type: 'remote',
        sources: [{ type: 'repository', target: 'workspace/r', content: '' }],
      },
    });
    expect(error.details.field).toBe('environment.sources[0].type');
    expect(error.message).toContain('"inline"');
  });

  it('a bad network value', () => {
    const error = refusal({
      agent: 'scripted',
      input: 'x',
      environment: { type: 'remote', network: { allowlist: 5 } },
    });
    expect(error.details.field).toBe('environment.network.allowlist');
  });

  it('a body that is not an object', () => {
    expect(refusal([1, 2]).details.field).toBe('body');
    expect(refusal('x').details.field).toBe('body');
  });
});
