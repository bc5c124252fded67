import { describe, expect, it } from 'vitest';
import { parseHooksConfig, safeParseHooksConfig } from '../../src/config/hooks-config.js';
import { UserError } from '../../src/errors/index.js';

const problemsOf = (config: unknown) => {
  const result = safeParseHooksConfig(typeof config === 'string' ? config : JSON.stringify(config));
  if (result.success) throw new Error('expected problems');
  return result.problems;
};

const gemini = {
  'security-gate': {
    enabled: true,
    pre_tool_execution: [
      {
        matcher: 'code_execution',
        hooks: [
          { type: 'command', command: 'python3 /.agents/hooks-scripts/gate.py', timeout: 10 },
        ],
      },
    ],
  },
  'auto-format': {
    post_tool_execution: [
      {
        matcher: '*',
        hooks: [
          { type: 'command', command: 'python3 /.agents/hooks-scripts/auto_lint.py', timeout: 15 },
        ],
      },
    ],
  },
};

describe('hooks.json schema', () => {
  it('accepts the Gemini page example with defaults filled in', () => {
    const config = parseHooksConfig(JSON.stringify(gemini));
    expect(config.groups.map((g) => g.name)).toEqual(['security-gate', 'auto-format']);
    expect(config.groups[1]!.enabled).toBe(true);
    const handler = config.groups[0]!.pre_tool_execution[0]!.handlers[0]!;
    expect(handler).toEqual({
      type: 'command',
      command: 'python3 /.agents/hooks-scripts/gate.py',
      timeoutSeconds: 10,
      onError: 'allow',
      prestart: undefined,
      worker: false,
      runAs: 'hook',
    });
    const defaulted = parseHooksConfig(
      JSON.stringify({
        g: { pre_tool_execution: [{ hooks: [{ type: 'command', command: 'x' }] }] },
      }),
    );
    expect(defaulted.groups[0]!.pre_tool_execution[0]!.handlers[0]!.timeoutSeconds).toBe(30);
  });

  it('ignores keys that begin with _ at every level', () => {
    const config = parseHooksConfig(
      JSON.stringify({
        _comment: 'top',
        g: {
          _note: 1,
          pre_tool_execution: [
            { _why: 'x', matcher: 'a', hooks: [{ _c: true, type: 'command', command: 'true' }] },
          ],
        },
      }),
    );
    expect(config.groups.map((g) => g.name)).toEqual(['g']);
  });

  it('names an unknown key and the key it resembles, with its JSON path', () => {
    const [problem] = problemsOf({ g: { pre_tool_exection: [] } });
    expect(problem).toEqual({
      path: 'g.pre_tool_exection',
      message: 'unknown key "pre_tool_exection" (did you mean "pre_tool_execution"?)',
    });
    const [handler] = problemsOf({
      g: { pre_tool_execution: [{ hooks: [{ type: 'command', command: 'x', timout: 5 }] }] },
    });
    expect(handler!.path).toBe('g.pre_tool_execution[0].hooks[0].timout');
    expect(handler!.message).toContain('did you mean "timeout"');
    const [far] = problemsOf({ g: { colour: 'red' } });
    expect(far!.message).toBe('unknown key "colour"');
  });

  it.each([0, -1, 1.5, 601, '10', null])('refuses timeout %j', (timeout) => {
    const [problem] = problemsOf({
      g: { pre_tool_execution: [{ hooks: [{ type: 'command', command: 'x', timeout }] }] },
    });
    expect(problem!.path).toBe('g.pre_tool_execution[0].hooks[0].timeout');
  });

  it('takes a command of up to 128 KiB - 1 bytes (one argument of /bin/sh -c) and refuses a longer one', () => {
    const withCommand = (command: string) => ({
      g: { pre_tool_execution: [{ hooks: [{ type: 'command', command }] }] },
    });
    // 'é' is two bytes: the limit is in bytes, not characters.
    const longest = 'é'.repeat(65535) + 'x';
    expect(safeParseHooksConfig(JSON.stringify(withCommand(longest))).success).toBe(true);
    const [problem] = problemsOf(withCommand(longest + 'x'));
    expect(problem!.path).toBe('g.pre_tool_execution[0].hooks[0].command');
    expect(problem!.message).toMatch(/at most 131071 bytes.*script under \.agents/);
  });

  it('accepts timeouts 1 and 600', () => {
    for (const timeout of [1, 600]) {
      expect(
        safeParseHooksConfig(
          JSON.stringify({
            g: { pre_tool_execution: [{ hooks: [{ type: 'command', command: 'x', timeout }] }] },
          }),
        ).success,
      ).toBe(true);
    }
  });

  it('refuses bad JSON, bad types, unknown handler types, empty commands, non-https URLs, bad on_error', () => {
    expect(problemsOf('{"g": ')[0]!.message).toMatch(/not valid JSON/);
    expect(problemsOf([])[0]!.path).toBe('(top level)');
    expect(problemsOf({ g: 5 })[0]!.path).toBe('g');
    expect(problemsOf({ g: { enabled: 'yes' } })[0]!.path).toBe('g.enabled');
    expect(problemsOf({ g: { pre_tool_execution: {} } })[0]!.path).toBe('g.pre_tool_execution');
    expect(
      problemsOf({ g: { pre_tool_execution: [{ hooks: [{ type: 'shell', command: 'x' }] }] } })[0]!
        .message,
    ).toMatch(/"command" or "http"/);
    expect(
      problemsOf({
        g: { pre_tool_execution: [{ hooks: [{ type: 'command', command: '  ' }] }] },
      })[0]!.path,
    ).toBe('g.pre_tool_execution[0].hooks[0].command');
    expect(
      problemsOf({
        g: { pre_tool_execution: [{ hooks: [{ type: 'http', url: 'http://x.example.com' }] }] },
      })[0]!.message,
    ).toMatch(/https/);
    expect(
      problemsOf({
        g: {
          pre_tool_execution: [{ hooks: [{ type: 'command', command: 'x', on_error: 'block' }] }],
        },
      })[0]!.message,
    ).toMatch(/"allow" or "deny"/);
    expect(problemsOf({ g: { pre_tool_execution: [{ matcher: 5, hooks: [] }] } })[0]!.path).toBe(
      'g.pre_tool_execution[0].matcher',
    );
  });

  it('refuses a glob matcher with a hint, and an unbalanced parenthesis', () => {
    const [glob] = problemsOf({ g: { pre_tool_execution: [{ matcher: '*_file', hooks: [] }] } });
    expect(glob!.path).toBe('g.pre_tool_execution[0].matcher');
    expect(glob!.message).toContain('did you mean ".*_file"?');
    expect(
      problemsOf({ g: { post_tool_execution: [{ matcher: '(read_file', hooks: [] }] } })[0]!
        .message,
    ).toMatch(/not a valid RE2/);
    expect(
      problemsOf({ g: { pre_tool_execution: [{ matcher: '**', hooks: [] }] } })[0]!.message,
    ).toMatch(/not a valid RE2/);
    expect(
      problemsOf({ g: { pre_tool_execution: [{ matcher: '*|x', hooks: [] }] } })[0]!.message,
    ).toMatch(/not a valid RE2/);
  });

  it('the throwing parse gives a UserError listing every problem', () => {
    try {
      parseHooksConfig(
        JSON.stringify({
          g: {
            pre_tool_execution: [
              { matcher: '*_file', hooks: [] },
              { matcher: '(', hooks: [] },
            ],
          },
        }),
      );
      throw new Error('expected a throw');
    } catch (error) {
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).code).toBe('invalid_hooks_config');
      expect((error as UserError).message).toContain('g.pre_tool_execution[0].matcher');
      expect((error as UserError).message).toContain('g.pre_tool_execution[1].matcher');
    }
  });
});
