// A real PostgreSQL server for one test file: initdb into a temporary folder and pg_ctl start on a
// free loopback port, as the system user hookbox-pg (initdb refuses root; scripts/ensure-postgres.sh
// makes the user and installs Debian's postgresql when initdb is absent). Stopped with `stop()`.
import { execa } from 'execa';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Postgres {
  url: string;
  stop(): Promise<void>;
}

function bin(name: string): string {
  for (const dir of ['/usr/local/bin', '/usr/bin'])
    if (existsSync(join(dir, name))) return join(dir, name);
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort()
    : [];
  const found = versions
    .map((v) => `/usr/lib/postgresql/${v}/bin/${name}`)
    .filter(existsSync)
    .at(-1);
  if (!found) throw new Error(`${name} not found: run scripts/ensure-postgres.sh (npm run setup)`);
  return found;
}

export async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function asPostgresUser(command: string, args: string[]) {
  if (process.getuid?.() !== 0) return execa(command, args);
  await execa('bash', ['scripts/ensure-postgres.sh'], { env: { QUIET: '1' } });
  return execa('runuser', ['-u', 'hookbox-pg', '--', command, ...args]);
}

export async function startPostgres(): Promise<Postgres> {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-pg-'));
  chmodSync(dir, 0o700);
  if (process.getuid?.() === 0) {
    const { stdout } = await execa('id', ['-u', 'hookbox-pg']).catch(async () => {
      await execa('bash', ['scripts/ensure-postgres.sh'], { env: { QUIET: '1' } });
      return execa('id', ['-u', 'hookbox-pg']);
    });
    const { stdout: gid } = await execa('id', ['-g', 'hookbox-pg']);
    chownSync(dir, Number(stdout), Number(gid));
  }
  const data = join(dir, 'data');
  await asPostgresUser(bin('initdb'), [
    '-D',
    data,
    '-U',
    'hookbox',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const port = await freePort();
  await asPostgresUser(bin('pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-t',
    '60',
    'start',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
  ]);
  return {
    url: `postgres://hookbox@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await asPostgresUser(bin('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(
        () => {},
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
