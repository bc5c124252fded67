// The interaction service refuses a bad request before making any environment, naming the field.
// Shared helpers: service-helpers.ts.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AUDIT_REQUEST,
  codeCall,
  scripted,
  SECURITY_GATE_REQUEST,
  toolCall,
} from './gemini-requests.js';
import { closeServices, recordingDriver, refusal, setup } from './service-helpers.js';

afterEach(closeServices);

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
