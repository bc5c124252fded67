// Library options are checked with zod like the API's requests: a bad value is a UserError naming
// the field, before any container is made — not a 500 from the engine.
import { describe, expect, it } from 'vitest';
import { ownResources } from './cli-helpers.js';
import { useController } from './helpers.js';

const controller = useController();

describe('Controller.createEnvironment options', () => {
  it.each([
    [{ sandbox: { cpus: 0 } }, 'sandbox.cpus'],
    [{ sandbox: { memoryMb: -1 } }, 'sandbox.memoryMb'],
    [{ sandbox: { pidsLimit: 2.5 } }, 'sandbox.pidsLimit'],
    [{ sandbox: { memroyMb: 512 } }, 'sandbox'],
    [{ toolTimeoutMs: 0 }, 'toolTimeoutMs'],
    [{ outputCapBytes: 'big' }, 'outputCapBytes'],
    [{ vocabulary: '2027-01' }, 'vocabulary'],
  ])('%j is refused naming %s', async (options, field) => {
    const before = await ownResources();
    const error = await (
      await controller()
    )
      .createEnvironment(options as never)
      .then(() => undefined)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'user', code: 'invalid_argument' });
    expect((error as { details: { field: string } }).details.field).toContain(field);
    expect((error as Error).message.startsWith(field)).toBe(true);
    expect(await ownResources()).toEqual(before);
  });

  it('good limits are accepted', async () => {
    const environment = await (
      await controller()
    ).createEnvironment({ sandbox: { cpus: 0.5, memoryMb: 256, pidsLimit: 64 } });
    await environment.delete();
  });
});
