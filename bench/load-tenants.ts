// `LOAD_TENANTS=2 npm run bench:load`: one tenant floods while another runs a steady workload, and
// the steady tenant's latency is compared with its solo runs, measured in the same server,
// interleaved (solo, flood, solo, flood, …). Both tenants come from a structured keys file; the
// flooding tenant's quotas are what keep it from taking the host (docs/tenants.md, "Quotas").
// Options: LOAD_ROUNDS (solo/flood pairs, default 3), LOAD_STEADY_CLIENTS (default 2),
// LOAD_ROUND_INTERACTIONS (per steady client per round, default 8), LOAD_FLOOD_CLIENTS (default 20).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Hookbox, HookboxApiError } from '../src/client/index.js';
import { packageRoot } from '../src/paths.js';
import { seedGateSources } from './seed-sources.js';

const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 3);
const STEADY_CLIENTS = Number(process.env.LOAD_STEADY_CLIENTS ?? 2);
const ROUND_INTERACTIONS = Number(process.env.LOAD_ROUND_INTERACTIONS ?? 8);
const FLOOD_CLIENTS = Number(process.env.LOAD_FLOOD_CLIENTS ?? 20);
const STEADY_KEY = 'steady-tenant-key';
const FLOOD_KEY = 'flood-tenant-key1';

const percentile = (samples: number[], p: number) =>
  samples.length === 0
    ? NaN
    : [...samples].sort((a, b) => a - b)[
        Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))
      ]!;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runTwoTenants(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-load-tenants-'));
  const keysFile = join(dir, 'keys.yaml');
  // The flooder's quotas are the operator's protection of everyone else.
  writeFileSync(
    keysFile,
    `keys:
  - name: steady
    key: ${STEADY_KEY}
  - name: flood
    key: ${FLOOD_KEY}
    quotas: {environments: 2, interactions: 2, requests_per_second: 20}
`,
  );
  const port = await freePort();
  const server = spawn(
    'node',
    [
      join(packageRoot(), 'bin', 'hookbox.js'),
      'serve',
      '--port',
      String(port),
      '--api-keys-file',
      keysFile,
    ],
    {
      env: { ...process.env, HOOKBOX_API_KEYS: '', HOOKBOX_LOG_LEVEL: 'warn', HOOKBOX_HOME: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: server.stderr }).on(
      'line',
      (line) => line.includes('listening on') && resolve(),
    );
    server.once('exit', (code) => reject(new Error(`hookbox serve exited ${code}`)));
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const steady = new Hookbox({ baseUrl, apiKey: STEADY_KEY });
  const flood = new Hookbox({ baseUrl, apiKey: FLOOD_KEY });
  const sources = seedGateSources();
  const body: Parameters<Hookbox['interactions']['create']>[0] & { stream?: false } = {
    agent: 'scripted',
    input: [
      {
        type: 'code_execution_call',
        arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
      },
      { type: 'code_execution_call', arguments: { code: 'echo hello', language: 'bash' } },
    ],
    environment: { type: 'remote', sources },
  };

  const errors: string[] = [];
  const one = async (client: Hookbox): Promise<'ok' | 'refused'> => {
    try {
      const interaction = await client.interactions.create(body);
      // The delete is retried past a 429: a leaked environment would count against the quota.
      for (;;) {
        try {
          await client.environments.delete(interaction.environment_id);
          break;
        } catch (error) {
          if (!(error instanceof HookboxApiError && error.status === 429)) throw error;
          await sleep(50);
        }
      }
      return 'ok';
    } catch (error) {
      if (error instanceof HookboxApiError && error.status === 429) return 'refused';
      throw error;
    }
  };

  const solo: number[] = [];
  const flooded: number[] = [];
  let floodDone = 0;
  let floodRefused = 0;
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssMb(server.pid!)), 1000);

  const steadyRound = async (into: number[]) => {
    await Promise.all(
      Array.from({ length: STEADY_CLIENTS }, async () => {
        for (let i = 0; i < ROUND_INTERACTIONS; i++) {
          const begun = performance.now();
          try {
            const outcome = await one(steady);
            if (outcome === 'refused') errors.push('steady tenant refused (429)');
            else into.push(performance.now() - begun);
          } catch (error) {
            errors.push((error as Error).message);
          }
        }
      }),
    );
  };

  try {
    // A warm-up round, not counted.
    await steadyRound([]);
    for (let round = 0; round < ROUNDS; round++) {
      await steadyRound(solo);
      let flooding = true;
      // The flood: many clients, each retrying at once after a refusal (a hostile client does not
      // honour Retry-After).
      const flooders = Array.from({ length: FLOOD_CLIENTS }, async () => {
        while (flooding) {
          try {
            const outcome = await one(flood);
            if (outcome === 'ok') floodDone += 1;
            else floodRefused += 1;
          } catch (error) {
            errors.push(`flood: ${(error as Error).message}`);
          }
          await sleep(5);
        }
      });
      await sleep(500);
      await steadyRound(flooded);
      flooding = false;
      await Promise.all(flooders);
    }
  } finally {
    clearInterval(sampler);
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  const soloP95 = percentile(solo, 95);
  const floodP95 = percentile(flooded, 95);
  console.log(
    `two tenants: ${ROUNDS} rounds, steady tenant ${STEADY_CLIENTS} clients × ${ROUND_INTERACTIONS} interactions per round, flooding tenant ${FLOOD_CLIENTS} clients (quotas: 2 environments, 2 interactions, 20 requests/s)\n`,
  );
  console.log(
    `steady tenant alone:      p50 ${percentile(solo, 50).toFixed(0)} ms, p95 ${soloP95.toFixed(0)} ms (${solo.length} interactions)`,
  );
  console.log(
    `steady tenant, flooded:   p50 ${percentile(flooded, 50).toFixed(0)} ms, p95 ${floodP95.toFixed(0)} ms (${flooded.length} interactions)`,
  );
  console.log(`p95 ratio flooded / alone: ${(floodP95 / soloP95).toFixed(2)}×`);
  console.log(
    `flooding tenant: ${floodDone} interactions served, ${floodRefused} requests refused with 429`,
  );
  console.log(`server RSS: max ${Math.max(...rss).toFixed(0)} MiB`);
  console.log(`errors: ${errors.length}`);
  for (const error of errors.slice(0, 5)) console.log(`  error: ${error}`);
  return errors.length === 0 ? 0 : 1;
}
