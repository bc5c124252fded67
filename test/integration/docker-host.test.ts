// A DOCKER_HOST that names no engine (docs/operations.md, "The engine"): `hookbox call` and
// `hookbox doctor`, run as a user runs them, name the address, the variable and the missing socket,
// and no engine is started (the setup script's lines never appear).
import { execa } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourcesDir } from './cli-helpers.js';

const BIN = join(process.cwd(), 'bin', 'hookbox.js');
const NOPE = join(mkdtempSync(join(tmpdir(), 'hookbox-nope-')), 'nope.sock');
const env = {
  ...process.env,
  DOCKER_HOST: `unix://${NOPE}`,
  HOOKBOX_HOME: mkdtempSync(join(tmpdir(), 'hookbox-home-')),
};

describe('a DOCKER_HOST where no engine answers', () => {
  it('hookbox call fails naming the socket and DOCKER_HOST, starting nothing', async () => {
    const dir = sourcesDir({ '.agents/hooks.json': '{}' });
    const run = await execa(
      'node',
      [BIN, 'call', '--sources', dir, '--tool', 'code_execution', '--args', '{"code": "true"}'],
      { env, reject: false, timeout: 120_000 },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`no Docker engine answers at unix://${NOPE} (from DOCKER_HOST)`);
    expect(run.stderr).toContain(`no socket at ${NOPE}`);
    expect(run.stderr).not.toContain('hookbox-dockerd.log');
    expect(run.stderr).not.toContain('[hookbox setup]');
  });

  it('hookbox doctor names them too', async () => {
    const run = await execa('node', [BIN, 'doctor'], { env, reject: false, timeout: 60_000 });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(`✖ no Docker engine answers at unix://${NOPE} (from DOCKER_HOST)`);
    expect(run.stdout).toContain('unset DOCKER_HOST');
  });
});
