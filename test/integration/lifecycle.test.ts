import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerInspectInfo } from 'dockerode';
import { describe, expect, it } from 'vitest';
import { placeSources } from '../../src/config/sources.js';
import { Controller } from '../../src/controller/controller.js';
import { SystemError, UserError } from '../../src/errors/index.js';
import { createLogger } from '../../src/record/logger.js';
import type { SandboxContainerSpec } from '../../src/sandbox/container-runtime.js';
import { DockerBackend } from '../../src/backends/docker/docker-backend.js';
import type { DockerRuntime } from '../../src/backends/docker/docker-runtime.js';
import { resultOf } from '../../src/tools/results.js';
import { hooksJson, inline, rule, useController } from './helpers.js';

const controller = useController();
const docker = (...args: string[]) => execFileSync('docker', args).toString().trim();
const resourcesOf = (environmentId: string) => ({
  containers: docker('ps', '-aq', '--filter', `label=dev.hookbox.environment=${environmentId}`),
  volumes: docker(
    'volume',
    'ls',
    '-q',
    '--filter',
    `label=dev.hookbox.environment=${environmentId}`,
  ),
});

describe('environment lifecycle', () => {
  it('labels its container and its volumes, and deleting removes them all', async () => {
    const environment = await (
      await controller()
    ).createEnvironment({ sources: [inline('workspace/a.txt', 'a')] });
    const made = resourcesOf(environment.id);
    expect(made.containers.split('\n')).toHaveLength(1);
    // /workspace is a volume, or (a root controller on the engine's host) a bind mount of the
    // environment's own disk (docs/security.md, "Workspace disk").
    const mounts = JSON.parse(
      docker('inspect', '--format', '{{json .Mounts}}', made.containers),
    ) as ContainerInspectInfo['Mounts'];
    const workspace = mounts.find((mount) => mount.Destination === '/workspace');
    const roles =
      workspace?.Type === 'bind' ? ['agents', 'state'] : ['agents', 'state', 'workspace'];
    if (workspace?.Type === 'bind') expect(workspace.Source).toContain(`/disks/${environment.id}/`);
    expect(made.volumes.split('\n').sort()).toEqual(
      roles.map((role) => `hookbox-${environment.id}-${role}`),
    );
    const labels = JSON.parse(
      docker('inspect', '--format', '{{json .Config.Labels}}', made.containers),
    ) as Record<string, string>;
    expect(labels).toMatchObject({
      'dev.hookbox.managed': 'true',
      'dev.hookbox.environment': environment.id,
      'dev.hookbox.role': 'sandbox',
    });
    const host = JSON.parse(
      docker('inspect', '--format', '{{json .HostConfig}}', made.containers),
    ) as ContainerInspectInfo['HostConfig'];
    expect(host).toMatchObject({
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      NetworkMode: 'none',
      PidsLimit: 256,
      Memory: 1024 * 1024 * 1024,
      NanoCpus: 1e9,
    });
    expect(host.SecurityOpt).toContain('no-new-privileges:true');
    await environment.delete();
    expect(resourcesOf(environment.id)).toEqual({ containers: '', volumes: '' });
  });

  it('a failure after the container exists removes what was made and reports the original error', async () => {
    const logger = createLogger({ level: 'silent' });
    const docker = new DockerBackend(logger);
    const failing = Object.assign(Object.create(docker.runtime) as DockerRuntime, {
      startContainer: async () => {
        throw new SystemError('sandbox_failed', 'injected start failure');
      },
    });
    let madeFor: string | undefined;
    const spy = Object.assign(failing, {
      createContainer: async (spec: SandboxContainerSpec) => {
        madeFor = spec.labels['dev.hookbox.environment'];
        return docker.runtime.createContainer(spec);
      },
    });
    const c = await Controller.start({
      backend: { ...docker, runtime: spy },
      logger,
      home: mkdtempSync(join(tmpdir(), 'hookbox-')),
    });
    await expect(c.createEnvironment({ sources: [inline('workspace/a', 'x')] })).rejects.toThrow(
      'injected start failure',
    );
    expect(madeFor).toMatch(/^env_/);
    expect(resourcesOf(madeFor!)).toEqual({ containers: '', volumes: '' });
  });

  it('a failure after the sandbox is up (the audit log cannot be written) removes the container and volumes', async () => {
    const home = join(mkdtempSync(join(tmpdir(), 'hookbox-')), 'a-file');
    writeFileSync(home, 'not a folder');
    const c = await Controller.start({ logger: createLogger({ level: 'silent' }), home });
    const before = docker('ps', '-aq', '--filter', `label=dev.hookbox.controller=${c.identity.id}`);
    await expect(c.createEnvironment({ vocabulary: '2026-05' })).rejects.toThrow(
      /ENOTDIR|not a directory/,
    );
    expect(docker('ps', '-aq', '--filter', `label=dev.hookbox.controller=${c.identity.id}`)).toBe(
      before,
    );
    expect(
      docker('volume', 'ls', '-q', '--filter', `label=dev.hookbox.controller=${c.identity.id}`),
    ).toBe('');
    await c.close();
  });

  it('invalid sources and hooks.json are refused before any container is made', async () => {
    const c = await controller();
    const before = docker('ps', '-aq', '--filter', `label=dev.hookbox.controller=${c.identity.id}`);
    await expect(
      c.createEnvironment({ sources: [inline('workspace/../x', '')] }),
    ).rejects.toBeInstanceOf(UserError);
    await expect(
      c.createEnvironment({
        sources: [hooksJson({ g: { pre_tool_execution: [rule('*_file', 'true')] } })],
      }),
    ).rejects.toThrow(/did you mean/);
    expect(docker('ps', '-aq', '--filter', `label=dev.hookbox.controller=${c.identity.id}`)).toBe(
      before,
    );
  });
});

describe('replacing the gates of a live environment (docs/contract.md §3)', () => {
  const denyAll = (reason: string) =>
    hooksJson({
      g: {
        pre_tool_execution: [
          rule('code_execution', `echo '{"decision": "deny", "reason": "${reason}"}'`),
        ],
      },
    });

  it('swaps to the new gates, adds workspace files, and refuses an invalid update leaving the old gates', async () => {
    const environment = await (
      await controller()
    ).createEnvironment({
      sources: [denyAll('old gate'), inline('.agents/old-script.sh', '#!/bin/sh\n')],
    });
    try {
      expect(
        (await environment.call({ name: 'code_execution', args: { code: 'true' } })).reason,
      ).toBe('old gate');
      await environment.addSources(
        placeSources([denyAll('new gate'), inline('workspace/added.txt', 'added')]),
      );
      const after = await environment.call({ name: 'code_execution', args: { code: 'true' } });
      expect(after.reason).toBe('new gate');
      expect(
        (await environment.call({ name: 'read_file', args: { path: 'added.txt' } })).result,
      ).toEqual({ content: 'added' });
      const listing = await environment.call({ name: 'list_files', args: { path: '/.agents' } });
      expect(resultOf(listing, 'list_files').entries.map((entry) => entry.name)).toEqual([
        'hooks.json',
      ]);
      await expect(
        environment.addSources(
          placeSources([
            inline(
              '.agents/hooks.json',
              '{"g": {"pre_tool_execution": [{"matcher": "(", "hooks": []}]}}',
            ),
          ]),
        ),
      ).rejects.toThrow(/not a valid RE2/);
      expect(
        (await environment.call({ name: 'code_execution', args: { code: 'true' } })).reason,
      ).toBe('new gate');
      expect(
        resultOf(
          await environment.call({ name: 'read_file', args: { path: '/.agents/hooks.json' } }),
          'read_file',
        ).content,
      ).toContain('new gate');
    } finally {
      await environment.delete();
    }
  });

  it('a call in flight sees the old gates or the new ones, never a mix', async () => {
    const twoHandlers = (tag: string) =>
      hooksJson({
        g: {
          pre_tool_execution: [
            rule(
              'code_execution',
              `echo '{"decision": "allow", "reason": "${tag}-1"}'`,
              `echo '{"decision": "allow", "reason": "${tag}-2"}'`,
            ),
          ],
        },
      });
    const environment = await (
      await controller()
    ).createEnvironment({ sources: [twoHandlers('old')] });
    try {
      const calls = Array.from({ length: 6 }, () =>
        environment.call({ name: 'code_execution', args: { code: 'sleep 0.05' } }),
      );
      const swap = environment.addSources(placeSources([twoHandlers('new')]));
      const more = Array.from({ length: 6 }, () =>
        environment.call({ name: 'code_execution', args: { code: 'true' } }),
      );
      await swap;
      for (const outcome of await Promise.all([...calls, ...more])) {
        const tags = outcome.hooks.map((hook) => hook.reason!.split('-')[0]);
        expect(new Set(tags).size).toBe(1);
      }
      expect(
        (await Promise.all(more)).every((outcome) => outcome.hooks[0]!.reason === 'new-1'),
      ).toBe(true);
    } finally {
      await environment.delete();
    }
  });
});
