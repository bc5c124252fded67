// README, Decisions: re-sending `.agents/` sources replaces all of /.agents, atomically (docs/contract.md §3):
// an update that is refused, for any reason, leaves the old gates exactly as they were.
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { placeSources } from '../../src/config/sources.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;
const HOOKS = hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh')] } });
const SOURCES = [
  HOOKS,
  inline('.agents/gate.sh', GATE),
  inline('.agents/lib/helper.sh', 'exit 0\n'),
];

async function expectOldGates(environment: Environment): Promise<void> {
  const gated = await environment.call(bash('echo FORBIDDEN'));
  expect([gated.blocked, gated.reason]).toEqual([true, 'forbidden word']);
  const listing = await environment.call(bash('cd /.agents && find . | sort && cat gate.sh'));
  expect(execResultOf(listing).stdout).toBe(
    `.\n./gate.sh\n./hooks.json\n./lib\n./lib/helper.sh\n${GATE}`,
  );
}

describe('a refused gate update leaves the old gates intact', () => {
  it.each([
    ['a lone surrogate in a script', 'echo \ud800 bad\n'],
    ['a lone low surrogate', 'x\udc00'],
  ])('%s', async (_, content) => {
    await withEnvironment(controller, { sources: SOURCES }, async (environment) => {
      const update = async () =>
        environment.addSources(
          placeSources([
            hooksJson({ other: { pre_tool_execution: [rule('*', '/.agents/new.sh')] } }),
            inline('.agents/new.sh', '#!/bin/sh\nexit 0\n'),
            inline('.agents/gate.sh', content),
          ]),
        );
      // Refused as the caller's mistake (whichever check sees it first), naming the file.
      await expect(update()).rejects.toMatchObject({ kind: 'user', message: /gate\.sh/ });
      await expectOldGates(environment);
    });
  });

  it('a good update replaces every file, leaves nothing of the staging behind, and the new gate blocks', async () => {
    await withEnvironment(controller, { sources: SOURCES }, async (environment) => {
      const NEW = `#!/bin/sh\nif grep -q OTHER; then echo '{"decision":"deny","reason":"new gate"}'; fi\nexit 0\n`;
      await environment.addSources(
        placeSources([
          hooksJson({ other: { pre_tool_execution: [rule('*', '/.agents/new.sh')] } }),
          inline('.agents/new.sh', NEW),
        ]),
      );
      const listing = await environment.call(bash('cd /.agents && find . | sort'));
      expect(execResultOf(listing).stdout).toBe('.\n./hooks.json\n./new.sh\n');
      const gated = await environment.call(bash('echo OTHER FORBIDDEN'));
      expect([gated.blocked, gated.reason]).toEqual([true, 'new gate']);
    });
  });
});
