// `npm run bench:disk`: what a workspace disk (`sandbox.diskMb`, a loop-mounted ext4 per
// environment) adds to making an environment cold, against a plain volume (`diskMb: 0`), measured
// in the same run, interleaved. The warm pool makes both ahead of time, so hand-out is unchanged.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../src/controller/controller.js';
import { createLogger } from '../src/record/logger.js';
import { SANDBOX_DEFAULTS } from '../src/sandbox/sandbox-options.js';
import { seedGateSources } from './seed-sources.js';

const ROUNDS = Number(process.env.BENCH_ITERATIONS ?? 20);
const sources = seedGateSources();
const percentile = (samples: number[], p: number) =>
  [...samples].sort((a, b) => a - b)[
    Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))
  ]!;

const controller = await Controller.start({
  logger: createLogger({ level: 'silent' }),
  home: mkdtempSync(join(tmpdir(), 'hookbox-bench-disk-')),
});
const times: Record<'volume' | 'disk', number[]> = { volume: [], disk: [] };
try {
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of i % 2 === 0
      ? (['volume', 'disk'] as const)
      : (['disk', 'volume'] as const)) {
      const diskMb = kind === 'disk' ? SANDBOX_DEFAULTS.diskMb : 0;
      const started = performance.now();
      const environment = await controller.createEnvironment({ sources, sandbox: { diskMb } });
      times[kind].push(performance.now() - started);
      await environment.delete();
    }
  }
} finally {
  await controller.close();
}
const row = (name: string, samples: number[]) =>
  `${name.padEnd(34)} p50 ${percentile(samples, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(samples, 95).toFixed(1).padStart(7)} ms`;
console.log(row('cold, plain volume (diskMb: 0)', times.volume));
console.log(row(`cold, ${SANDBOX_DEFAULTS.diskMb} MiB workspace disk`, times.disk));
console.log(
  `ratio disk / volume: p50 ${(percentile(times.disk, 50) / percentile(times.volume, 50)).toFixed(2)}×, ` +
    `+${(percentile(times.disk, 50) - percentile(times.volume, 50)).toFixed(1)} ms`,
);
