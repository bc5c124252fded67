import { describe, expect, it } from 'vitest';
import { hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';

const controller = useController();

// Each handler appends its name to a log in the hook state dir, then prints what it was told to.
const STEP = `#!/bin/sh
name="$1"; answer="$2"
cat > /dev/null
echo "$name" >> "$HOOKBOX_STATE_DIR/order.log"
case "$answer" in
  deny) echo '{"decision": "deny", "reason": "'"$name"' says no"}' ;;
  *) echo '{"decision": "allow"}' ;;
esac
`;
// Reads the log back: a gate on list_files that denies with the log as its reason.
const REPORT = `#!/bin/sh
cat > /dev/null
log=$(tr '\\n' ' ' < "$HOOKBOX_STATE_DIR/order.log" 2>/dev/null)
printf '{"decision": "deny", "reason": "%s"}' "$log"
`;

const step = (name: string, answer = 'allow') => `/.agents/step.sh ${name} ${answer}`;
const reporter = { reporter: { pre_tool_execution: [rule('list_files', '/.agents/report.sh')] } };
const scripts = [inline('.agents/step.sh', STEP), inline('.agents/report.sh', REPORT)];
const report = async (environment: {
  call: (c: { name: string; args: Record<string, unknown> }) => Promise<{ reason: string | null }>;
}) => (await environment.call({ name: 'list_files', args: { path: '.' } })).reason?.trim();

describe('order and short-circuit (docs/contract.md §6)', () => {
  it('runs groups in file order, rules in order, handlers in declaration order', async () => {
    const hooks = {
      second: {
        pre_tool_execution: [
          rule('code_execution', step('b1'), step('b2')),
          rule('code_.*', step('b3')),
        ],
      },
      first: {
        pre_tool_execution: [rule('code_execution', step('a1'), step('a2'))],
        post_tool_execution: [rule('*', step('p1')), rule('code_execution', step('p2'))],
      },
      ...reporter,
    };
    await withEnvironment(
      controller,
      { sources: [hooksJson(hooks), ...scripts] },
      async (environment) => {
        const outcome = await environment.call({
          name: 'code_execution',
          args: { code: 'echo ok' },
        });
        expect(outcome.blocked).toBe(false);
        expect(outcome.hooks.map((h) => [h.group, h.event, h.outcome])).toEqual([
          ['second', 'pre_tool_execution', 'allow'],
          ['second', 'pre_tool_execution', 'allow'],
          ['second', 'pre_tool_execution', 'allow'],
          ['first', 'pre_tool_execution', 'allow'],
          ['first', 'pre_tool_execution', 'allow'],
          ['first', 'post_tool_execution', 'ok'],
          ['first', 'post_tool_execution', 'ok'],
        ]);
        expect(await report(environment)).toBe('b1 b2 b3 a1 a2 p1 p2');
      },
    );
  });

  it('stops at the first deny: later pre handlers are skipped, the tool and post hooks do not run', async () => {
    const hooks = {
      one: {
        pre_tool_execution: [rule('code_execution', step('a1'), step('a2', 'deny'), step('a3'))],
      },
      two: {
        pre_tool_execution: [rule('code_execution', step('b1'))],
        post_tool_execution: [rule('*', step('p1'))],
      },
      ...reporter,
    };
    await withEnvironment(
      controller,
      { sources: [hooksJson(hooks), ...scripts] },
      async (environment) => {
        const outcome = await environment.call({
          name: 'code_execution',
          args: { code: 'touch /workspace/ran' },
        });
        expect(outcome.blocked).toBe(true);
        expect(outcome.reason).toBe('a2 says no');
        expect(outcome.result).toBeNull();
        expect(outcome.hooks.map((h) => [h.group, h.outcome])).toEqual([
          ['one', 'allow'],
          ['one', 'deny'],
          ['one', 'skipped'],
          ['two', 'skipped'],
        ]);
        expect(outcome.hooks.filter((h) => h.event === 'post_tool_execution')).toEqual([]);
        expect(await report(environment)).toBe('a1 a2');
        const probe = await environment.call({ name: 'read_file', args: { path: 'ran' } });
        expect(probe.result).toEqual({ error: '/workspace/ran: No such file or directory' });
        const skipped = environment
          .records()
          .filter((entry) => entry.kind === 'hook' && entry.outcome === 'skipped');
        expect(skipped).toHaveLength(2);
      },
    );
  });

  it('a disabled group does not run; an enabled one beside it does', async () => {
    const hooks = {
      off: { enabled: false, pre_tool_execution: [rule('*', step('x', 'deny'))] },
      on: { enabled: true, pre_tool_execution: [rule('code_execution', step('y'))] },
      ...reporter,
    };
    await withEnvironment(
      controller,
      { sources: [hooksJson(hooks), ...scripts] },
      async (environment) => {
        const outcome = await environment.call({
          name: 'code_execution',
          args: { code: 'echo ok' },
        });
        expect(outcome.blocked).toBe(false);
        expect(outcome.hooks.map((h) => h.group)).toEqual(['on']);
        expect(await report(environment)).toBe('y');
      },
    );
  });
});
