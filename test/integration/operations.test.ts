import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerInspectInfo } from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { SystemError } from '../../src/errors/index.js';
import { createLogger } from '../../src/record/logger.js';
import { hooksJson, inline, rule, useController } from './helpers.js';
import { execResultOf, resultOf, toolErrorOf } from '../../src/tools/results.js';

/** `docker inspect`'s HostConfig; @types/dockerode leaves these lists untyped (`any`). */
type HostConfig = Omit<ContainerInspectInfo['HostConfig'], 'CapAdd' | 'CapDrop' | 'SecurityOpt'> & {
  CapAdd: string[] | null;
  CapDrop: string[] | null;
  SecurityOpt: string[] | null;
};

const docker = (...args: string[]) => execFileSync('docker', args).toString().trim();
const gate = hooksJson({
  gate: {
    pre_tool_execution: [
      rule(
        'code_execution',
        `python3 -c 'import json,sys; c=json.load(sys.stdin)["tool_call"]["args"]["code"]; print(json.dumps({"decision": "deny", "reason": "no"} if "FORBIDDEN" in c else {"decision": "allow"}))'`,
      ),
    ],
  },
});

describe('the warm pool', () => {
  let controller: Controller;
  beforeAll(async () => {
    controller = await Controller.start({
      logger: createLogger({ level: 'silent' }),
      home: mkdtempSync(join(tmpdir(), 'hookbox-pool-')),
      pool: { size: 2 },
    });
    await controller.pool!.waitUntilReady(2);
  });
  afterAll(() => controller.close());

  it('hands out a pooled environment with the request sources, as locked down as a cold one', async () => {
    expect(controller.pool!.size).toBe(2);
    const pooled = await controller.createEnvironment({
      vocabulary: '2026-05',
      sources: [gate, inline('workspace/data.txt', 'd')],
    });
    const cold = await controller.createEnvironment({
      vocabulary: '2026-05',
      sources: [gate, inline('workspace/data.txt', 'd')],
      sandbox: { memoryMb: 1024 },
    });
    const config = (id: string) => {
      const host = JSON.parse(
        docker('inspect', '--format', '{{json .HostConfig}}', id),
      ) as HostConfig;
      const mounts = (
        JSON.parse(
          docker('inspect', '--format', '{{json .Mounts}}', id),
        ) as ContainerInspectInfo['Mounts']
      )
        .map((m) => [m.Destination, m.RW])
        .sort();
      return {
        ReadonlyRootfs: host.ReadonlyRootfs,
        CapAdd: host.CapAdd,
        CapDrop: host.CapDrop,
        SecurityOpt: host.SecurityOpt,
        NetworkMode: host.NetworkMode,
        PidsLimit: host.PidsLimit,
        Memory: host.Memory,
        mounts,
      };
    };
    expect(config(pooled.sandbox.containerId)).toEqual(config(cold.sandbox.containerId));
    for (const environment of [pooled, cold]) {
      expect(
        (await environment.call({ name: 'code_execution', args: { code: 'echo FORBIDDEN' } }))
          .blocked,
      ).toBe(true);
      const attack = await environment.call({
        name: 'code_execution',
        args: {
          code: 'rm -f /.agents/hooks.json; echo x > /.agents/hooks.json; stat -c %U:%a data.txt',
        },
      });
      expect(execResultOf(attack).stdout).toBe('tool:644\n');
      expect(
        resultOf(
          await environment.call({ name: 'read_file', args: { path: '/.agents/hooks.json' } }),
          'read_file',
        ).content,
      ).toContain('FORBIDDEN');
      expect(
        (await environment.call({ name: 'code_execution', args: { code: 'echo FORBIDDEN again' } }))
          .blocked,
      ).toBe(true);
    }
    await Promise.all([pooled.delete(), cold.delete()]);
  });

  it('never hands out an environment twice, and refills', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const environment = await controller.createEnvironment({ vocabulary: '2026-05' });
      expect(seen.has(environment.id)).toBe(false);
      seen.add(environment.id);
      await environment.call({ name: 'write_file', args: { path: 'used.txt', content: 'x' } });
      await environment.delete();
    }
    await controller.pool!.waitUntilReady(2);
    expect(controller.pool!.size).toBe(2);
    const fresh = await controller.createEnvironment({ vocabulary: '2026-05' });
    expect(seen.has(fresh.id)).toBe(false);
    expect(
      toolErrorOf(await fresh.call({ name: 'read_file', args: { path: 'used.txt' } })),
    ).toMatch(/No such file/);
    await fresh.delete();
  });
});

describe('faults', () => {
  const controller = useController();

  it('a container removed from outside gives a clear error on the next call; other environments carry on', async () => {
    const c = await controller();
    const [doomed, bystander] = await Promise.all([
      c.createEnvironment({ vocabulary: '2026-05' }),
      c.createEnvironment({ vocabulary: '2026-05' }),
    ]);
    docker('rm', '-f', doomed.sandbox.containerId);
    const failure = await doomed
      .call({ name: 'code_execution', args: { code: 'true' } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SystemError);
    expect((failure as SystemError).code).toBe('environment_lost');
    expect((failure as SystemError).message).toMatch(/its container was removed/);
    expect(
      execResultOf(await bystander.call({ name: 'code_execution', args: { code: 'echo fine' } }))
        .stdout,
    ).toBe('fine\n');
    await doomed.delete().catch(() => {});
    await bystander.delete();
  });

  it('a sandbox agent that dies is detected: the call in flight fails at once, saying the container stopped', async () => {
    const c = await controller();
    const environment = await c.createEnvironment({ vocabulary: '2026-05' });
    const started = Date.now();
    let running!: () => void;
    const runs = new Promise<void>((resolve) => (running = resolve));
    const inFlight = environment
      .call(
        { name: 'code_execution', args: { code: 'echo running; sleep 30' } },
        { onStdout: running },
      )
      .catch((error: unknown) => error);
    await runs;
    // The exec itself dies with the container, so its exit status says nothing.
    try {
      docker(
        'exec',
        environment.sandbox.containerId,
        'pkill',
        '-9',
        '-f',
        '/opt/hookbox/agent/main.py',
      );
    } catch {
      // expected
    }
    const failure = await inFlight;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((failure as SystemError).code).toBe('environment_lost');
    expect((failure as SystemError).message).toMatch(/stopped|removed/);
    await environment.delete();
  });

  it('memory exhaustion by tool code is contained: the tool process is killed, the environment keeps working', async () => {
    const c = await controller();
    const environment = await c.createEnvironment({
      vocabulary: '2026-05',
      sandbox: { memoryMb: 128 },
    });
    const hog = await environment.call({
      name: 'code_execution',
      args: { code: 'x = bytearray(512 * 1024 * 1024)', language: 'python' },
    });
    expect(execResultOf(hog).exit_code).not.toBe(0);
    expect(
      execResultOf(await environment.call({ name: 'code_execution', args: { code: 'echo alive' } }))
        .stdout,
    ).toBe('alive\n');
    await environment.delete();
  });
});
