import { describe, expect, it, vi } from 'vitest';
import { UserError } from '../../../src/errors/errors.js';
import {
  allow,
  allowAll,
  askUser,
  confirmCodeExecution,
  deny,
  denyAll,
  HookRunner,
  PolicyEnforcer,
  type PolicyRule,
} from '../../../src/hooks/controller-hooks/index.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { toolCallContext, toolCallScope } from './support.js';

const SHELL: ToolCall = { name: 'code_execution', args: { code: 'ls' } };
const MCP_ADMIN: ToolCall = { name: 'server/admin/reset', args: {} };

async function effectOf(rules: PolicyRule[], call: ToolCall): Promise<string> {
  return (await new PolicyEnforcer({ rules }).decide(call, toolCallContext())).effect;
}

describe('PolicyEnforcer precedence: nine buckets (specificity × effect)', () => {
  // Each case pits the bucket's rule against a weaker effect of the same specificity and against
  // less specific rules that would decide the other way.

  it('exact deny beats an exact allow and a global allow', async () => {
    const rules = [
      allow('*'),
      allow('code_execution'),
      deny('code_execution', { reason: 'no shell' }),
    ];
    const decision = await new PolicyEnforcer({ rules }).decide(SHELL, toolCallContext());
    expect(decision).toMatchObject({ effect: 'deny', reason: 'no shell', field: 'rules[2]' });
  });

  it('exact askUser beats an exact allow and a prefix deny: the person decides', async () => {
    const ask = vi.fn(() => true);
    const rules = [
      deny('code_*'),
      allow('code_execution'),
      askUser('code_execution', ask),
      deny('*'),
    ];
    expect(await effectOf(rules, SHELL)).toBe('allow');
    expect(ask).toHaveBeenCalledTimes(1);
    ask.mockReturnValue(false);
    expect(await effectOf(rules, SHELL)).toBe('deny');
  });

  it('exact allow beats a prefix deny and a global deny', async () => {
    expect(await effectOf([deny('*'), deny('code_*'), allow('code_execution')], SHELL)).toBe(
      'allow',
    );
  });

  it('prefix deny beats a prefix allow of the same length and a global allow', async () => {
    const rules = [allow('*'), allow('server/*'), deny('server/*')];
    expect(await effectOf(rules, MCP_ADMIN)).toBe('deny');
  });

  it('prefix askUser beats a prefix allow and a global deny', async () => {
    const ask = vi.fn(async () => true);
    const rules = [deny('*'), allow('server/*'), askUser('server/*', ask)];
    expect(await effectOf(rules, MCP_ADMIN)).toBe('allow');
    expect(ask).toHaveBeenCalledWith(MCP_ADMIN, expect.objectContaining({ callId: 'call_1' }));
  });

  it('prefix allow beats a global deny', async () => {
    expect(await effectOf([deny('*'), allow('server/*')], MCP_ADMIN)).toBe('allow');
  });

  it('global deny beats a global askUser and a global allow', async () => {
    const ask = vi.fn(() => true);
    expect(await effectOf([allow('*'), askUser('*', ask), deny('*')], SHELL)).toBe('deny');
    expect(ask).not.toHaveBeenCalled();
  });

  it('global askUser beats a global allow', async () => {
    expect(await effectOf([allow('*'), askUser('*', () => false)], SHELL)).toBe('deny');
  });

  it('global allow decides when no more specific rule matches, where no rule would leave no opinion', async () => {
    const narrowDeny = deny('code_execution', { when: (call) => call.args['code'] === 'rm -rf /' });
    expect(await effectOf([narrowDeny, deny('server/*'), allow('*')], SHELL)).toBe('allow');
    expect(await effectOf([narrowDeny, deny('server/*')], SHELL)).toBe('none');
  });

  it('among prefixes the longest wins', async () => {
    expect(await effectOf([deny('server/*'), allow('server/admin/*')], MCP_ADMIN)).toBe('allow');
    expect(await effectOf([allow('server/*'), deny('server/admin/*')], MCP_ADMIN)).toBe('deny');
  });

  it('declaration order does not matter', async () => {
    expect(await effectOf([deny('code_execution'), allow('code_execution')], SHELL)).toBe('deny');
    expect(await effectOf([allow('code_execution'), deny('code_execution')], SHELL)).toBe('deny');
  });
});

describe('PolicyEnforcer conditions and handlers', () => {
  it('a rule whose condition is false does not match, so a less specific rule decides', async () => {
    const rules = [
      deny('code_execution', { when: (call) => String(call.args['code']).includes('curl') }),
      allow('*'),
    ];
    expect(await effectOf(rules, SHELL)).toBe('allow');
    expect(await effectOf(rules, { name: 'code_execution', args: { code: 'curl x' } })).toBe(
      'deny',
    );
  });

  it('a condition that throws counts as a matching deny rule of its bucket', async () => {
    const rules = [
      allow('code_execution', {
        when: () => {
          throw new Error('bad predicate');
        },
      }),
      allow('*'),
    ];
    const decision = await new PolicyEnforcer({ name: 'ops', rules }).decide(
      SHELL,
      toolCallContext(),
    );
    expect(decision).toMatchObject({ effect: 'deny', field: 'rules[0]' });
    expect(decision.effect === 'deny' && decision.reason).toBe(
      'tool "code_execution" is denied by policy "ops": the condition of rules[0]: allow "code_execution" failed: bad predicate',
    );
  });

  it('a throwing condition in the deciding bucket wins over an askUser there, before anyone is asked', async () => {
    const ask = vi.fn(() => true);
    const rules = [
      askUser('code_execution', ask),
      allow('code_execution', { when: () => Promise.reject(new Error('x')) }),
    ];
    expect(await effectOf(rules, SHELL)).toBe('deny');
    expect(ask).not.toHaveBeenCalled();
  });

  it('conditions of less specific buckets are not evaluated once a more specific one decides', async () => {
    const globalCondition = vi.fn(() => true);
    expect(
      await effectOf([allow('code_execution'), deny('*', { when: globalCondition })], SHELL),
    ).toBe('allow');
    expect(globalCondition).not.toHaveBeenCalled();
  });

  it.each([
    ['answers false', () => false],
    ['answers something other than true', () => 'yes' as unknown as boolean],
    [
      'throws',
      () => {
        throw new Error('no terminal');
      },
    ],
  ])('an askUser handler that %s denies', async (_what, handler) => {
    expect(await effectOf([askUser('code_execution', handler)], SHELL)).toBe('deny');
  });

  it('uses the rule’s reason when a person declines', async () => {
    const decision = await new PolicyEnforcer({
      rules: [askUser('code_execution', () => false, { reason: 'the operator said no' })],
    }).decide(SHELL, toolCallContext());
    expect(decision).toMatchObject({ effect: 'deny', reason: 'the operator said no' });
  });
});

describe('PolicyEnforcer as a hook', () => {
  it('denies through the runner, recorded as a policy', async () => {
    const runner = new HookRunner([
      new PolicyEnforcer({ name: 'operator', rules: [deny('code_execution')] }),
    ]);
    const outcome = await runner.beforeToolCall(toolCallScope(), SHELL);
    expect(outcome.blocked).toBe(true);
    expect(outcome.reason).toBe(
      'tool "code_execution" is denied by policy "operator" (rules[0]: deny "code_execution")',
    );
    expect(outcome.records[0]).toMatchObject({
      type: 'policy',
      handler: 'operator',
      outcome: 'deny',
    });
  });

  it('an allow rule is an opinion: it ends the dispatch; no matching rule is none', async () => {
    const enforcer = new PolicyEnforcer({ rules: [allow('read_file')] });
    await expect(
      enforcer.beforeToolCall(toolCallContext(), { name: 'read_file', args: {} }),
    ).resolves.toMatchObject({
      decision: 'allow',
    });
    await expect(enforcer.beforeToolCall(toolCallContext(), SHELL)).resolves.toBeUndefined();
  });
});

describe('PolicyEnforcer validation at construction', () => {
  function constructionError(rules: unknown[]): UserError {
    try {
      new PolicyEnforcer({ rules: rules as PolicyRule[] });
    } catch (error) {
      if (error instanceof UserError) return error;
      throw error;
    }
    throw new Error('the enforcer accepted the rules');
  }

  it.each([
    [
      'an askUser rule without a handler',
      [{ effect: 'askUser', tool: 'code_execution' }],
      'rules[0].askUser',
    ],
    [
      'a handler on a deny rule',
      [{ effect: 'deny', tool: 'x', askUser: () => true }],
      'rules[0].askUser',
    ],
    ['an empty tool pattern', [deny('')], 'rules[0].tool'],
    ['a star inside a pattern', [deny('*_file')], 'rules[0].tool'],
    ['a pattern with spaces around it', [allow(' read_file')], 'rules[0].tool'],
    ['an unknown effect', [{ effect: 'block', tool: 'x' }], 'rules[0].effect'],
    [
      'a condition that is not a function',
      [{ effect: 'deny', tool: 'x', when: 'always' }],
      'rules[0].when',
    ],
    ['an empty reason', [deny('x', { reason: ' ' })], 'rules[0].reason'],
    ['a bad rule inside a nested list', [deny('x'), [allow('y'), deny('')]], 'rules[1][1].tool'],
  ])('refuses %s, naming the field', (_what, rules, field) => {
    const error = constructionError(rules);
    expect(error.code).toBe('invalid_argument');
    expect(error.details.field).toBe(field);
  });

  it('flattens nested rule lists from helpers', () => {
    const enforcer = new PolicyEnforcer({ rules: [denyAll(), allow('read_file')] });
    expect(enforcer.rules.map((rule) => rule.effect)).toEqual(['deny', 'allow']);
  });
});

describe('policy presets', () => {
  it('denyAll and allowAll are global rules that more specific rules override', async () => {
    expect(await effectOf(denyAll(), SHELL)).toBe('deny');
    expect(await effectOf(allowAll(), SHELL)).toBe('allow');
    expect(await effectOf([...denyAll(), allow('code_execution')], SHELL)).toBe('allow');
    expect(await effectOf([...allowAll(), deny('code_execution')], SHELL)).toBe('deny');
  });

  it('confirmCodeExecution asks before every code_execution call and only then', async () => {
    const ask = vi.fn(() => false);
    const rules = confirmCodeExecution(ask);
    expect(await effectOf(rules, SHELL)).toBe('deny');
    expect(await effectOf(rules, { name: 'read_file', args: { path: 'a' } })).toBe('none');
    expect(ask).toHaveBeenCalledTimes(1);
  });
});
