// README, Security model: each workspace has a size limit (`sandbox.diskMb`). Writes past it fail
// with "No space left on device" inside the sandbox, and the host's disk holds no more than the
// limit for it: /workspace is a filesystem of its own, in a sparse file loop-mounted on the host.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/sandbox-options.js';
import { diskRootOf } from '../../src/sandbox/workspace-disk.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { execResultOf, toolErrorOf } from '../../src/tools/results.js';

const controller = useController();

const GATE = `#!/bin/sh\nif grep -q FORBIDDEN; then echo '{"decision":"deny","reason":"forbidden word"}'; fi\nexit 0\n`;
const SOURCES = [
  hooksJson({ gate: { pre_tool_execution: [rule('*', '/.agents/gate.sh')] } }),
  inline('.agents/gate.sh', GATE),
  inline('workspace/keep.txt', 'kept\n'),
];

describe('the workspace disk limit', () => {
  it('writes past sandbox.diskMb fail with ENOSPC; the host holds at most the limit; gates still run', async () => {
    const home = (await controller()).home;
    await withEnvironment(
      controller,
      { sources: SOURCES, sandbox: { diskMb: 64 } },
      async (environment) => {
        const image = join(diskRootOf(home), environment.id, 'workspace.ext4');
        expect(existsSync(image)).toBe(true);
        const size = await environment.call(bash('df -m --output=size /workspace | tail -1'));
        expect(Number(execResultOf(size).stdout)).toBeGreaterThan(50);
        expect(Number(execResultOf(size).stdout)).toBeLessThanOrEqual(64);
        const fill = await environment.call(
          bash('dd if=/dev/zero of=big bs=1M count=200 2>&1; echo "exit $?"'),
        );
        expect(execResultOf(fill).stdout).toMatch(/No space left on device[\s\S]*exit 1\n$/);
        // The sparse file on the host never grows past the limit.
        expect(statSync(image).blocks * 512).toBeLessThanOrEqual(64 * 1024 * 1024);
        const file = await environment.call({
          name: 'write_file',
          args: { path: 'more.txt', content: 'x'.repeat(1024 * 1024) },
        });
        expect(toolErrorOf(file)).toMatch(/No space left on device/);
        // Full, the workspace still serves the gates: they start in it and block.
        const gated = await environment.call(bash('echo FORBIDDEN'));
        expect([gated.blocked, gated.reason]).toEqual([true, 'forbidden word']);
        const freed = await environment.call(bash('rm big; echo ok > small && cat small keep.txt'));
        expect(execResultOf(freed).stdout).toBe('ok\nkept\n');
      },
    );
  });

  it(`every workspace is limited by default (${SANDBOX_DEFAULTS.diskMb} MiB), and its disk goes with it`, async () => {
    const home = (await controller()).home;
    let image = '';
    await withEnvironment(controller, { sources: SOURCES }, async (environment) => {
      image = join(diskRootOf(home), environment.id, 'workspace.ext4');
      const size = await environment.call(
        bash('df -m --output=size /workspace | tail -1; stat -c "%u:%g %a" /workspace'),
      );
      const [megabytes, owner] = execResultOf(size).stdout.trim().split('\n');
      expect(Number(megabytes)).toBeGreaterThan(SANDBOX_DEFAULTS.diskMb * 0.9);
      expect(Number(megabytes)).toBeLessThanOrEqual(SANDBOX_DEFAULTS.diskMb);
      expect(owner).toBe('0:1000 775');
    });
    expect(existsSync(image)).toBe(false);
  });
});
