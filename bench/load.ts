// `npm run bench:load`: N concurrent clients, each running M interactions over HTTP against a
// `hookbox serve` child process (defaults 20 × 50, the seed gate). Prints the error count,
// p50/p95/p99 latency, throughput, the server's RSS over time, and the containers and volumes
// left at the end. Options: LOAD_CLIENTS, LOAD_INTERACTIONS, LOAD_POOL (warm pool size, default 0);
// LOAD_TENANTS=2 runs the two-tenant mode instead (bench/load-tenants.ts).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Hookbox } from '../src/client/index.js';
import { packageRoot } from '../src/paths.js';
import { seedGateSources } from './seed-sources.js';

// LOAD_TENANTS=2: one tenant floods, another's latency is compared with its solo runs.
if (Number(process.env.LOAD_TENANTS ?? 1) === 2) {
  const { runTwoTenants } = await import('./load-tenants.js');
  process.exit(await runTwoTenants());
}

const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 20);
const INTERACTIONS = Number(process.env.LOAD_INTERACTIONS ?? 50);
const POOL = Number(process.env.LOAD_POOL ?? 0);
const API_KEY = 'load-bench-key';

const sources = seedGateSources();

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const percentile = (samples: number[], p: number) =>
  samples.length === 0
    ? NaN
    : [...samples].sort((a, b) => a - b)[
        Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))
      ]!;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const count = (args: string[]) =>
  execFileSync('docker', args).toString().split('\n').filter(Boolean).length;

const port = await freePort();
const serverArgs = [join(packageRoot(), 'bin', 'hookbox.js'), 'serve', '--port', String(port)];
if (POOL > 0) serverArgs.push('--pool-size', String(POOL));
const server = spawn('node', serverArgs, {
  // Its own home: the server is durable by default, and one server holds a state file at a time.
  env: {
    ...process.env,
    HOOKBOX_API_KEYS: API_KEY,
    HOOKBOX_LOG_LEVEL: 'warn',
    HOOKBOX_HOME: mkdtempSync(join(tmpdir(), 'hookbox-bench-load-')),
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
await new Promise<void>((resolve, reject) => {
  const lines = createInterface({ input: server.stderr });
  lines.on('line', (line) => {
    if (line.includes('listening on')) resolve();
  });
  server.once('exit', (code) => reject(new Error(`hookbox serve exited ${code}`)));
});

const client = new Hookbox({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY });
const latencies: number[] = [];
const errors: string[] = [];
const rss: { atS: number; mb: number }[] = [];
const started = performance.now();
const sampler = setInterval(
  () => rss.push({ atS: (performance.now() - started) / 1000, mb: rssMb(server.pid!) }),
  1000,
);

async function oneClient(): Promise<void> {
  for (let i = 0; i < INTERACTIONS; i++) {
    const begun = performance.now();
    try {
      const interaction = await client.interactions.create({
        agent: 'scripted',
        input: [
          {
            type: 'code_execution_call',
            arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
          },
          { type: 'code_execution_call', arguments: { code: 'echo hello', language: 'bash' } },
        ],
        environment: { type: 'remote', sources },
      });
      const results = interaction.steps.filter((step) => step.type === 'code_execution_result');
      if (interaction.status !== 'completed' || results.length !== 2)
        errors.push(`unexpected interaction ${interaction.id}: ${interaction.status}`);
      await client.environments.delete(interaction.environment_id);
      latencies.push(performance.now() - begun);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
}

try {
  await Promise.all(Array.from({ length: CLIENTS }, oneClient));
} finally {
  clearInterval(sampler);
  rss.push({ atS: (performance.now() - started) / 1000, mb: rssMb(server.pid!) });
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
}
const seconds = (performance.now() - started) / 1000;
const total = CLIENTS * INTERACTIONS;

console.log(
  `load: ${CLIENTS} clients × ${INTERACTIONS} interactions (seed gate: one blocked call, one allowed), pool ${POOL}\n`,
);
console.log(`interactions: ${total}, errors: ${errors.length}`);
for (const error of errors.slice(0, 5)) console.log(`  error: ${error}`);
console.log(
  `latency per interaction (create + delete): p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`,
);
console.log(
  `throughput: ${(latencies.length / seconds).toFixed(1)} interactions/s over ${seconds.toFixed(1)} s`,
);
const step = Math.max(1, Math.floor(rss.length / 10));
console.log(
  `server RSS (MiB) over time: ${rss
    .filter((_, i) => i % step === 0 || i === rss.length - 1)
    .map((s) => `${s.atS.toFixed(0)}s ${s.mb.toFixed(0)}`)
    .join(', ')}`,
);
console.log(
  `server RSS: max ${Math.max(...rss.map((s) => s.mb)).toFixed(0)} MiB, last ${rss.at(-1)!.mb.toFixed(0)} MiB`,
);
const mine = `label=dev.hookbox.controller-pid=${server.pid}`;
console.log(
  `left at the end by the server: ${count(['ps', '-aq', '--filter', mine])} containers, ${count(['volume', 'ls', '-q', '--filter', mine])} volumes`,
);
process.exitCode = errors.length === 0 ? 0 : 1;
