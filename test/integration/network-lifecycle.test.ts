// docs/contract.md §7 (network), against real containers: without an allowlist there is no network
// (and an http hook is refused at creation); with one, the environment's network, relay and proxy
// socket go with it, even when creation fails. The test servers and the controller:
// network-helpers.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { UserError } from '../../src/errors/index.js';
import { createLogger } from '../../src/record/logger.js';
import type { SandboxContainerSpec } from '../../src/sandbox/container-runtime.js';
import { DockerBackend } from '../../src/backends/docker/docker-backend.js';
import type { DockerRuntime } from '../../src/backends/docker/docker-runtime.js';
import { hooksJson } from './helpers.js';
import {
  bash,
  controller,
  dockerJson,
  egressSettings,
  home,
  httpsPort,
  labelled,
  startNetwork,
  stopNetwork,
} from './network-helpers.js';
import { execResultOf } from '../../src/tools/results.js';

beforeAll(startNetwork);
afterAll(stopNetwork);

describe('without an allowlist', () => {
  it('there is no interface but loopback', async () => {
    const environment = await controller.createEnvironment({ vocabulary: '2026-05' });
    try {
      const out = execResultOf(
        await environment.call(
          bash("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; env | grep -ci proxy"),
        ),
      ).stdout;
      expect(out).toBe('lo\n0\n');
      expect(environment.egress).toBeUndefined();
      expect(labelled('network', environment.id)).toBe('');
    } finally {
      await environment.delete();
    }
  });

  it('an http hook is refused at creation, naming its domain; nothing is made', async () => {
    const hooks = hooksJson({
      g: {
        post_tool_execution: [
          { hooks: [{ type: 'http', url: `https://telemetry.hookbox.test:${httpsPort}/ev` }] },
        ],
      },
    });
    const before = execFileSync('docker', [
      'ps',
      '-aq',
      '--filter',
      `label=dev.hookbox.controller=${controller.identity.id}`,
    ]).toString();
    for (const network of [undefined, { allowlist: [{ domain: 'allowed.hookbox.test' }] }]) {
      const error = await controller
        .createEnvironment({ sources: [hooks], ...(network ? { network } : {}) })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).message).toMatch(
        /"http" handlers need a network\.allowlist that names telemetry\.hookbox\.test/,
      );
      expect((error as UserError).details.field).toBe('g.post_tool_execution[0].hooks[0].url');
    }
    const bad = await controller
      .createEnvironment({ network: { allowlist: [{ domain: 'a.*.test' }] } })
      .catch((caught: unknown) => caught);
    expect((bad as UserError).details.field).toBe('network.allowlist[0].domain');
    expect(
      execFileSync('docker', [
        'ps',
        '-aq',
        '--filter',
        `label=dev.hookbox.controller=${controller.identity.id}`,
      ]).toString(),
    ).toBe(before);
  });
});

describe('lifecycle of the network', () => {
  it('the environment’s network, relay and proxy socket go with it', async () => {
    const environment = await controller.createEnvironment({
      network: { allowlist: [{ domain: 'allowed.hookbox.test' }] },
    });
    const id = environment.id;
    const network = dockerJson('network', 'inspect', `hookbox-${id}`) as {
      Internal: boolean;
      Options: Record<string, string>;
      Labels: Record<string, string>;
      Containers: Record<string, unknown>;
    }[];
    expect(network[0]).toMatchObject({
      Internal: true,
      Options: { 'com.docker.network.bridge.inhibit_ipv4': 'true' },
      Labels: {
        'dev.hookbox.environment': id,
        'dev.hookbox.role': 'network',
        'dev.hookbox.managed': 'true',
      },
    });
    expect(Object.keys(network[0]!.Containers)).toHaveLength(2);
    const relay = (
      dockerJson('inspect', `hookbox-${id}-egress`) as {
        Config: { User: string; Labels: Record<string, string> };
        HostConfig: { CapDrop: string[]; CapAdd: string[] | null; ReadonlyRootfs: boolean };
      }[]
    )[0]!;
    expect(relay.Config.User).toBe('65534:65534');
    expect(relay.Config.Labels['dev.hookbox.role']).toBe('egress');
    expect(relay.HostConfig).toMatchObject({ CapDrop: ['ALL'], ReadonlyRootfs: true });
    expect(relay.HostConfig.CapAdd ?? []).toEqual([]);
    const socket = join(home, 'egress', id, 'proxy.sock');
    expect(existsSync(socket)).toBe(true);
    await environment.delete();
    expect(labelled('ps', id)).toBe('');
    expect(labelled('network', id)).toBe('');
    expect(existsSync(join(home, 'egress', id))).toBe(false);
  });

  it('a failure after the network exists removes everything made', async () => {
    const logger = createLogger({ level: 'silent' });
    const docker = new DockerBackend(logger);
    let madeFor: string | undefined;
    const failing = Object.assign(Object.create(docker.runtime) as DockerRuntime, {
      createContainer: async (spec: SandboxContainerSpec) => {
        madeFor = spec.labels['dev.hookbox.environment'];
        if (spec.labels['dev.hookbox.role'] === 'sandbox')
          throw new Error('injected sandbox failure');
        return docker.runtime.createContainer(spec);
      },
    });
    const failingHome = mkdtempSync(join(tmpdir(), 'hookbox-net-'));
    const c = await Controller.start({
      backend: { ...docker, runtime: failing },
      logger,
      home: failingHome,
      egress: egressSettings(),
    });
    await expect(
      c.createEnvironment({ network: { allowlist: [{ domain: 'allowed.hookbox.test' }] } }),
    ).rejects.toThrow('injected sandbox failure');
    expect(madeFor).toMatch(/^env_/);
    expect(labelled('ps', madeFor!)).toBe('');
    expect(labelled('network', madeFor!)).toBe('');
    expect(existsSync(join(failingHome, 'egress', madeFor!))).toBe(false);
    await c.close();
  });
});
