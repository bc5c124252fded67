// The default image is one an agent can work in (docs/templates.md, "The default image"): git
// commits in /workspace as the tool user, jq, curl and node run, and a bash + jq hook script is a
// gate, as the hooks people publish for other agents are.
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';
import type { ExecResult } from '../../src/tools/types.js';

const controller = useController();

async function run(environment: Environment, code: string): Promise<ExecResult> {
  const outcome = await environment.call(bash(code));
  expect(outcome.blocked, `blocked: ${outcome.reason}`).toBe(false);
  return execResultOf(outcome);
}

/** Every command the documented list promises. */
const TOOLS = [
  'bash python3 node git jq curl wget less file zip unzip patch diff cmp find xargs ps pkill tar xz',
  'gzip ssh scp make',
].join(' ');

describe('the default image', () => {
  it('git init && git commit work in /workspace as the tool user', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      const result = await run(
        environment,
        [
          'cd /workspace && git init -q repo && cd repo',
          'echo hello > a.txt && git add a.txt && git commit -q -m first',
          "git log --format='%an <%ae>: %s' && git branch --show-current && whoami",
          'stat -c %U .git/HEAD',
        ].join(' && '),
      );
      expect(result).toMatchObject({
        exit_code: 0,
        stdout: 'hookbox sandbox <sandbox@hookbox.invalid>: first\nmain\ntool\ntool\n',
      });
    });
  });

  it('has every documented tool, and no compiler or ssh server', async () => {
    await withEnvironment(controller, {}, async (environment) => {
      const result = await run(
        environment,
        `for c in ${TOOLS}; do command -v "$c" >/dev/null || echo "missing $c"; done
         for c in gcc cc g++ sshd; do command -v "$c" >/dev/null && echo "present $c"; done
         jq -c '.a | add' <<<'{"a": [1, 2]}'
         curl --version | head -n 1 | cut -d' ' -f1
         node -e 'console.log(JSON.stringify({sum: 1 + 1}))'
         true`,
      );
      expect(result).toMatchObject({ exit_code: 0, stdout: '3\ncurl\n{"sum":2}\n' });
    });
  });

  it('a bash + jq hook script runs as a gate', async () => {
    const gate = [
      '#!/bin/bash',
      '# Reads the event with jq, denies a push, allows the rest.',
      'code=$(jq -r ".tool_call.args.code // empty")',
      'if [[ $code == *"git push"* ]]; then',
      '  jq -cn --arg who "$(id -un)" \'{decision: "deny", reason: ("no pushing (checked by " + $who + ")")}\'',
      'fi',
    ].join('\n');
    await withEnvironment(
      controller,
      {
        sources: [
          hooksJson({
            'git-gate': { pre_tool_execution: [rule('code_execution', '/.agents/gate.sh')] },
          }),
          inline('.agents/gate.sh', `${gate}\n`),
        ],
      },
      async (environment) => {
        const blocked = await environment.call(bash('git push origin main'));
        expect([blocked.blocked, blocked.reason]).toEqual([true, 'no pushing (checked by hook)']);
        expect(blocked.hooks.map((hook) => hook.outcome)).toEqual(['deny']);
        const allowed = await environment.call(bash('echo fine'));
        expect([allowed.blocked, execResultOf(allowed).stdout]).toEqual([false, 'fine\n']);
      },
    );
  });
});
