// Shared by the service-*.test.ts files: an InteractionService over a FakeController (fakes.ts),
// closed after each test (`afterEach(closeServices)`), and small helpers.
import { expect } from 'vitest';
import { HookboxError } from '../../../src/errors/index.js';
import type { DriverContext, ModelDriver } from '../../../src/interactions/driver.js';
import { InteractionService } from '../../../src/interactions/service.js';
import { FakeController, registryWith } from './fakes.js';

const services: InteractionService<FakeController>[] = [];

export function setup(fake?: ModelDriver, options: { environmentTtlMs?: number } = {}) {
  const controller = new FakeController();
  const service = new InteractionService({
    controller,
    drivers: registryWith(fake),
    ...options,
  });
  services.push(service);
  return { controller, service };
}

/** Closes the services of the test that just ran (each test file's afterEach). */
export async function closeServices(): Promise<void> {
  await Promise.all(services.splice(0).map((service) => service.close()));
}

export async function refusal(promise: Promise<unknown>): Promise<HookboxError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(HookboxError);
    return error as HookboxError;
  }
  throw new Error('accepted');
}

/** A driver that records its context and makes the calls it is given. */
export function recordingDriver(
  calls: { name: string; args: Record<string, unknown> }[] = [],
  say?: string,
) {
  const seen: DriverContext[] = [];
  const driver: ModelDriver = {
    name: 'fake',
    async run(context) {
      seen.push(context);
      for (const call of calls) await context.callTool(call);
      if (say) context.emitModelOutput(say);
    },
  };
  return { driver, seen };
}
