// `hookbox serve` on an address it cannot listen on: exit 2 naming the flag, no stack trace, and
// nothing left behind (the controller it started is closed).
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ownResources } from './cli-helpers.js';

async function run(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const io = { stdout: () => {}, stderr: (text: string) => (err += text), isTty: false };
  const code = await main(args, io);
  return { code, err };
}

describe('hookbox serve', () => {
  const home = mkdtempSync(join(tmpdir(), 'hookbox-bad-flags-'));
  /** Runs `body` with this test's HOOKBOX_HOME and an API key (a key lets serve listen beyond loopback). */
  const withHome = async <T>(body: () => Promise<T>): Promise<T> => {
    const before = { home: process.env.HOOKBOX_HOME, keys: process.env.HOOKBOX_API_KEYS };
    process.env.HOOKBOX_HOME = home;
    process.env.HOOKBOX_API_KEYS = 'listen-errors-key';
    try {
      return await body();
    } finally {
      for (const [name, value] of [
        ['HOOKBOX_HOME', before.home],
        ['HOOKBOX_API_KEYS', before.keys],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  };

  it('a port in use: exit 2 naming --port', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, err } = await withHome(() =>
        run(['serve', '--port', String(port), '--no-state']),
      );
      expect(code).toBe(2);
      expect(err).toContain('--port: port');
      expect(err).toContain('in use');
      expect(err).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('a host that is not this machine: exit 2 naming --host', async () => {
    const { code, err } = await withHome(() =>
      run(['serve', '--host', '10.255.255.254', '--port', '0', '--no-state']),
    );
    expect(code).toBe(2);
    expect(err).toContain('--host: cannot listen on "10.255.255.254"');
    expect(err).not.toMatch(/\n\s+at /);
    expect(await ownResources()).toEqual({ containers: 0, volumes: 0 });
  });
});
