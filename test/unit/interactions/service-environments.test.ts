// The interaction service's environments: sources added, network settings, expiry, delete; and
// close, which waits for running interactions, then refuses new ones. Shared helpers:
// service-helpers.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelDriver } from '../../../src/interactions/driver.js';
import { closeServices, refusal, setup } from './service-helpers.js';

afterEach(closeServices);

describe('environments', () => {
  it('an object with environment_id adds the sources to that environment', async () => {
    const { controller, service } = setup();
    const first = await service.create({ agent: 'scripted', input: 'x', environment: 'remote' });
    await service.create({
      agent: 'scripted',
      input: 'x',
      environment: {
        type: 'remote',
        environment_id: first.environment_id,
        sources: [{ type: 'inline', target: 'workspace/new.txt', content: 'new' }],
      },
    });
    expect(controller.created).toBe(1);
    expect(controller.environment(first.environment_id).added.map((s) => s.absolutePath)).toEqual([
      '/workspace/new.txt',
    ]);
  });

  it('"network": "disabled" and an empty allowlist are accepted', async () => {
    const { service } = setup();
    for (const network of ['disabled', { allowlist: [] }]) {
      const interaction = await service.create({
        agent: 'scripted',
        input: 'x',
        environment: { type: 'remote', network },
      });
      expect(interaction.status).toBe('completed');
    }
  });

  it('idle environments expire after the TTL, and a later request says so', async () => {
    const { controller, service } = setup(undefined, { environmentTtlMs: 20 });
    const interaction = await service.create({
      agent: 'scripted',
      input: 'x',
      environment: 'remote',
    });
    expect(await service.environmentInfo(interaction.environment_id)).toMatchObject({
      status: 'idle',
      hook_groups: ['fake-gate'],
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await service.sweep()).toEqual([interaction.environment_id]);
    expect(controller.environments.size).toBe(0);
    const error = await refusal(
      service.create({ agent: 'scripted', input: 'x', environment: interaction.environment_id }),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('expired');
  });

  it('an environment with an interaction running does not expire', async () => {
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const driver: ModelDriver = {
      name: 'fake',
      run: () => {
        started();
        return new Promise<void>((resolve) => (release = resolve));
      },
    };
    const { controller, service } = setup(driver, { environmentTtlMs: 1 });
    const interaction = service.create({ agent: 'fake', input: 'x', environment: 'remote' });
    await running;
    // Past the 1 ms time to live: only the running interaction keeps the environment.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await service.sweep()).toEqual([]);
    const [environment] = controller.listEnvironments();
    expect(await service.environmentInfo(environment!.id)).toMatchObject({
      status: 'active',
      expires_at: null,
    });
    release();
    await interaction;
  });

  it('delete removes it; then it is a 404 that says it was deleted', async () => {
    const { service } = setup();
    const interaction = await service.create({
      agent: 'scripted',
      input: 'x',
      environment: 'remote',
    });
    await service.deleteEnvironment(interaction.environment_id);
    const error = await refusal(
      Promise.resolve().then(() => service.environmentInfo(interaction.environment_id)),
    );
    expect(error.message).toContain('deleted');
  });
});

it('close waits for running interactions, then refuses new ones', async () => {
  let release!: () => void;
  let started!: () => void;
  const runStarted = new Promise<void>((resolve) => (started = resolve));
  const driver: ModelDriver = {
    name: 'fake',
    run: () => {
      started();
      return new Promise<void>((resolve) => (release = resolve));
    },
  };
  const { controller, service } = setup(driver);
  const running = service.create({ agent: 'fake', input: 'x', environment: 'remote' });
  await runStarted;
  const closing = service.close();
  let closed = false;
  void closing.then(() => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(closed).toBe(false);
  release();
  await closing;
  expect((await running).status).toBe('completed');
  expect(controller.environments.size).toBe(0);
  const error = await refusal(
    service.create({ agent: 'scripted', input: 'x', environment: 'remote' }),
  );
  expect(error.code).toBe('engine_unavailable');
});
