// `npm run bench:pool`: how long handing out an environment with the seed gate's sources takes,
// cold (container made on request) and from the warm pool, measured in the same run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../src/controller/controller.js';
import { seedGateSources } from './seed-sources.js';
import { createLogger } from '../src/record/logger.js';

const ROUNDS = Number(process.env.BENCH_ITERATIONS ?? 30);
const sources = seedGateSources();
const percentile = (samples: number[], p: number) =>
  [...samples].sort((a, b) => a - b)[
    Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))
  ]!;

const logger = createLogger({ level: 'silent' });
const home = mkdtempSync(join(tmpdir(), 'hookbox-bench-pool-'));
const cold = await Controller.start({ logger, home });
const pooled = await Controller.start({
  logger,
  home,
  pool: { size: ROUNDS + 2, refillConcurrency: 2 },
});
try {
  const coldTimes: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const environment = await cold.createEnvironment({ sources });
    coldTimes.push(performance.now() - started);
    await environment.delete();
  }
  await pooled.pool!.waitUntilReady(ROUNDS, 300_000);
  const pooledTimes: number[] = [];
  const handedOut = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const environment = await pooled.createEnvironment({ sources });
    pooledTimes.push(performance.now() - started);
    const check = await environment.call({
      name: 'code_execution',
      args: { code: 'rm -rf /tmp/forbidden' },
    });
    if (!check.blocked) throw new Error('a pooled environment was handed out without its gate');
    handedOut.push(environment);
  }
  console.log(`acquiring an environment with the seed gate's sources, ${ROUNDS} times each\n`);
  console.log('| how | p50 ms | p95 ms |');
  console.log('| --- | ---: | ---: |');
  console.log(
    `| cold (container made on request) | ${percentile(coldTimes, 50).toFixed(1)} | ${percentile(coldTimes, 95).toFixed(1)} |`,
  );
  console.log(
    `| warm pool | ${percentile(pooledTimes, 50).toFixed(1)} | ${percentile(pooledTimes, 95).toFixed(1)} |`,
  );
  console.log(
    `\ncold p50 / pooled p50: ${(percentile(coldTimes, 50) / percentile(pooledTimes, 50)).toFixed(1)}×`,
  );
} finally {
  await Promise.all([cold.close(), pooled.close()]);
}
