// `npm run bench:runtime`: what gVisor costs per call. The same calls in a runc environment and a
// runsc environment (docs/gvisor.md), interleaved sample by sample so both see the same machine
// load; p50/p95 and the runsc/runc ratio. Also the cost of making an environment on each.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../src/controller/controller.js';
import type { Environment } from '../src/controller/environment.js';
import { createLogger } from '../src/record/logger.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const CREATIONS = Number(process.env.BENCH_CREATIONS ?? 5);
const WARMUP = 10;
const RUNTIMES = ['runc', 'runsc'] as const;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const controller = await Controller.start({
  logger: createLogger({ level: 'silent' }),
  home: mkdtempSync(join(tmpdir(), 'hookbox-bench-')),
});
const gate = JSON.stringify({
  gates: {
    pre_tool_execution: [
      { matcher: 'code_execution', hooks: [{ type: 'command', command: 'echo {}' }] },
    ],
  },
});
const made: Environment[] = [];

try {
  const environments = new Map<string, { plain: Environment; gated: Environment }>();
  for (const runtime of RUNTIMES) {
    const plain = await controller.createEnvironment({ sandbox: { runtime } });
    const gated = await controller.createEnvironment({
      sandbox: { runtime },
      sources: [{ type: 'inline', target: '.agents/hooks.json', content: gate }],
    });
    made.push(plain, gated);
    environments.set(runtime, { plain, gated });
  }
  const measurements: Record<string, number[]> = {};
  const sample = async (label: string, run: () => Promise<unknown>) => {
    (measurements[label] ??= []).push(await timed(run));
  };
  const call = (code: string) => ({ name: 'code_execution', args: { code } });
  const workloads: [
    string,
    (env: { plain: Environment; gated: Environment }) => Promise<unknown>,
  ][] = [
    ['tool call `true`, no hooks', (env) => env.plain.call(call('true'))],
    ['tool call `true`, one command gate', (env) => env.gated.call(call('true'))],
    ['tool call: python3 start-up', (env) => env.plain.call(call('python3 -c pass'))],
    [
      'file tools: write_to_file + view_file',
      async (env) => {
        await env.plain.call({
          name: 'write_to_file',
          args: { TargetFile: 'b.txt', CodeContent: 'x' },
        });
        await env.plain.call({ name: 'view_file', args: { AbsolutePath: 'b.txt' } });
      },
    ],
  ];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    for (const [label, run] of workloads) {
      for (const runtime of RUNTIMES) {
        const env = environments.get(runtime)!;
        if (i < WARMUP) await run(env);
        else await sample(`${label}|${runtime}`, () => run(env));
      }
    }
  }
  for (let i = 0; i < CREATIONS; i++) {
    for (const runtime of RUNTIMES) {
      await sample(`make + delete an environment|${runtime}`, async () => {
        const environment = await controller.createEnvironment({ sandbox: { runtime } });
        await controller.deleteEnvironment(environment.id);
      });
    }
  }
  console.log(
    `hookbox runtime cost: ${ITERATIONS} samples per call row, ${CREATIONS} per environment row, runc and runsc interleaved, image ${controller.image}\n`,
  );
  console.log(
    '| measurement | runc p50 ms | runsc p50 ms | runc p95 ms | runsc p95 ms | runsc/runc p50 |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  const labels = [...new Set(Object.keys(measurements).map((key) => key.split('|')[0]!))];
  for (const label of labels) {
    const runc = measurements[`${label}|runc`]!;
    const runsc = measurements[`${label}|runsc`]!;
    console.log(
      `| ${label} | ${percentile(runc, 50).toFixed(1)} | ${percentile(runsc, 50).toFixed(1)} | ${percentile(runc, 95).toFixed(1)} | ${percentile(runsc, 95).toFixed(1)} | ${(percentile(runsc, 50) / percentile(runc, 50)).toFixed(2)}× |`,
    );
  }
} finally {
  for (const environment of made)
    await controller.deleteEnvironment(environment.id).catch(() => {});
  await controller.close();
}
