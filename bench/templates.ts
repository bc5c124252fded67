// `npm run bench:templates`: per template, how long making an environment with the seed gate's
// sources takes cold (container made on request) and from that template's warm pool. Templates
// from BENCH_TEMPLATES (default "default,full"; `full` is built first if need be). The templates
// are interleaved round by round, and every figure is also given as a ratio to the `default`
// template's cold start measured in the same run (docs/templates.md, "Cost").
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../src/controller/controller.js';
import type { Environment } from '../src/controller/environment.js';
import { createLogger } from '../src/record/logger.js';
import { seedGateSources } from './seed-sources.js';

const ROUNDS = Number(process.env.BENCH_ITERATIONS ?? 10);
const TEMPLATES = (process.env.BENCH_TEMPLATES ?? 'default,full').split(',').filter(Boolean);
const sources = seedGateSources();
const percentile = (samples: number[], p: number) =>
  [...samples].sort((a, b) => a - b)[
    Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))
  ]!;

const logger = createLogger({ level: 'silent' });
const home = mkdtempSync(join(tmpdir(), 'hookbox-bench-templates-'));

/** Checks that the environment handed out is gated. */
async function check(environment: Environment, template: string): Promise<void> {
  const blocked = await environment.call({
    name: 'code_execution',
    args: { code: 'rm -rf /tmp/forbidden' },
  });
  if (!blocked.blocked) throw new Error(`${template}: handed out without its gate`);
}

const cold = await Controller.start({
  logger,
  home,
  onProgress: (message) => process.stderr.write(`${message}\n`),
});
const coldTimes = new Map<string, number[]>(TEMPLATES.map((template) => [template, []]));
const pooledTimes = new Map<string, number[]>(TEMPLATES.map((template) => [template, []]));
const sizes = new Map<string, number>();
try {
  // Resolve (and build, for a shipped template used the first time) before timing anything.
  for (const template of TEMPLATES) {
    const image = await cold.templates.resolve(template);
    sizes.set(template, (await cold.client.inspectImage(image))?.sizeBytes ?? 0);
  }
  for (let round = 0; round < ROUNDS; round++)
    for (const template of TEMPLATES) {
      const started = performance.now();
      const environment = await cold.createEnvironment({ sources, template });
      coldTimes.get(template)!.push(performance.now() - started);
      await check(environment, template);
      await environment.delete();
    }
} finally {
  await cold.close();
}

// The pools fill after the cold rounds, so that their refilling does not slow those down.
const pooled = await Controller.start({
  logger,
  home,
  pools: Object.fromEntries(
    TEMPLATES.map((template) => [template, { size: ROUNDS, refillConcurrency: 2 }]),
  ),
});
const handedOut: Environment[] = [];
try {
  for (const template of TEMPLATES)
    await pooled.pools.get(template)!.waitUntilReady(ROUNDS, 600_000);
  for (let round = 0; round < ROUNDS; round++)
    for (const template of TEMPLATES) {
      const started = performance.now();
      const environment = await pooled.createEnvironment({ sources, template });
      pooledTimes.get(template)!.push(performance.now() - started);
      await check(environment, template);
      handedOut.push(environment);
    }
} finally {
  await pooled.close();
}

const baseline = percentile(coldTimes.get(TEMPLATES[0]!)!, 50);
console.log(
  `an environment with the seed gate's sources, per template, ${ROUNDS} times each (interleaved)\n`,
);
console.log(
  '| template | image size | cold p50 ms | cold p95 ms | pool hand-out p50 ms | pool hand-out p95 ms | cold p50 / pooled p50 |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const template of TEMPLATES) {
  const coldP50 = percentile(coldTimes.get(template)!, 50);
  const pooledP50 = percentile(pooledTimes.get(template)!, 50);
  console.log(
    `| ${template} | ${Math.round(sizes.get(template)! / 1e6)} MB | ${coldP50.toFixed(1)} | ${percentile(coldTimes.get(template)!, 95).toFixed(1)} | ${pooledP50.toFixed(1)} | ${percentile(pooledTimes.get(template)!, 95).toFixed(1)} | ${(coldP50 / pooledP50).toFixed(1)}× |`,
  );
}
console.log(`\ncold start p50 relative to ${TEMPLATES[0]}'s (${baseline.toFixed(1)} ms):`);
for (const template of TEMPLATES)
  console.log(
    `  ${template}: ${(percentile(coldTimes.get(template)!, 50) / baseline).toFixed(2)}×`,
  );
