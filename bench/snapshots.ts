// `npm run bench:snapshots`: snapshots and forks of a 50 MB workspace (random, incompressible data
// in five files), in interleaved rounds with a baseline (a plain cold environment made): medians
// and ratios. Targets (docs/environments.md, "Snapshots and forks"): snapshot ≤ 1 s, fork ≤ 1 s
// for one copy and ≤ 5 s for ten.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../src/controller/controller.js';
import type { Environment } from '../src/controller/environment.js';
import { createLogger } from '../src/record/logger.js';
import { execResultOf } from '../src/tools/results.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WORKSPACE_MB = Number(process.env.BENCH_WORKSPACE_MB ?? 50);
const FILES = 5;

const median = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function timed<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  samples.push(performance.now() - started);
  return result;
}

async function bash(environment: Environment, code: string): Promise<string> {
  const outcome = await environment.call({ name: 'code_execution', args: { code } });
  if (outcome.is_error) throw new Error(`bench setup failed: ${JSON.stringify(outcome.result)}`);
  return execResultOf(outcome).stdout;
}

const logger = createLogger({ level: 'silent' });
const controller = await Controller.start({
  logger,
  home: mkdtempSync(join(tmpdir(), 'hookbox-bench-snapshots-')),
});
const times = { baseline: [], snapshot: [], restore: [], fork1: [], fork10: [] } as Record<
  'baseline' | 'snapshot' | 'restore' | 'fork1' | 'fork10',
  number[]
>;
try {
  const source = await controller.createEnvironment({});
  const perFile = Math.ceil(WORKSPACE_MB / FILES);
  await bash(
    source,
    `for i in $(seq 1 ${FILES}); do head -c ${perFile}M /dev/urandom > data-$i.bin; done; du -sm /workspace`,
  );
  const size = await bash(source, 'du -sm /workspace | cut -f1');
  const sum = await bash(source, 'cat data-*.bin | md5sum');
  for (let round = 0; round < ROUNDS; round++) {
    const plain = await timed(times.baseline, () =>
      controller.createEnvironment({ usePool: false }),
    );
    await controller.deleteEnvironment(plain.id);
    const snapshot = await timed(times.snapshot, () => controller.snapshotEnvironment(source.id));
    const restored = await timed(times.restore, () =>
      controller.createEnvironment({ snapshot: snapshot.id }),
    );
    if ((await bash(restored, 'cat data-*.bin | md5sum')) !== sum)
      throw new Error('the restored workspace differs');
    await controller.deleteEnvironment(restored.id);
    await controller.snapshots.delete(snapshot);
    const [one] = await timed(times.fork1, () => controller.forkEnvironment(source.id, 1));
    await controller.deleteEnvironment(one!.id);
    const ten = await timed(times.fork10, () => controller.forkEnvironment(source.id, 10));
    if ((await bash(ten[9]!, 'cat data-*.bin | md5sum')) !== sum)
      throw new Error('a forked workspace differs');
    await Promise.all(ten.map((fork) => controller.deleteEnvironment(fork.id)));
  }
  const base = median(times.baseline);
  console.log(
    `snapshots and forks of a ${size.trim()} MB workspace (${FILES} random files), ${ROUNDS} interleaved rounds\n`,
  );
  console.log('| operation | median ms | × baseline | target |');
  console.log('| --- | ---: | ---: | ---: |');
  const rows: [string, number[], string][] = [
    ['baseline: a plain environment made (cold)', times.baseline, ''],
    ['snapshot', times.snapshot, '≤ 1000'],
    ['restore (new environment from the snapshot)', times.restore, ''],
    ['fork ×1', times.fork1, '≤ 1000'],
    ['fork ×10', times.fork10, '≤ 5000'],
  ];
  for (const [name, samples, target] of rows)
    console.log(
      `| ${name} | ${median(samples).toFixed(0)} | ${(median(samples) / base).toFixed(2)} | ${target} |`,
    );
} finally {
  await controller.close();
}
