// `npm run bench`: p50/p95 of a `true` tool call with no hooks, with one command gate, and of a plain
// per-call `docker exec true` on the same image, all in this one process, with the ratios between them.
import Docker from 'dockerode';
import { execa } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../src/environments/controller.js';
import { createLogger } from '../src/record/logger.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
// The CLI baseline is slow (a client process per call): fewer samples keep the run short.
const CLI_ITERATIONS = Math.min(ITERATIONS, 50);
const WARMUP = 20;
// Issue 2's bar: printed as a verdict, never asserted (timings are not test assertions).
const TARGET_RATIO = 20;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(
  label: string,
  run: () => Promise<unknown>,
  iterations = ITERATIONS,
): Promise<{ label: string; p50: number; p95: number }> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return { label, p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function dockerExecTrue(docker: Docker, containerId: string): Promise<void> {
  const exec = await docker
    .getContainer(containerId)
    .exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true, User: '1000:1000' });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.resume();
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`docker exec true exited ${info.ExitCode}`);
}

const controller = await Controller.start({
  logger: createLogger({ level: 'silent' }),
  home: mkdtempSync(join(tmpdir(), 'hookbox-bench-')),
});
const gate = JSON.stringify({
  gate: {
    pre_tool_execution: [
      {
        matcher: 'code_execution',
        hooks: [{ type: 'command', command: `echo '{"decision": "allow"}'` }],
      },
    ],
  },
});
const plain = await controller.createEnvironment();
const gated = await controller.createEnvironment({
  sources: [{ type: 'inline', target: '.agents/hooks.json', content: gate }],
});
const call = { name: 'code_execution', args: { code: 'true' } };
const docker = new Docker();
const gateDurations: number[] = [];

try {
  const noHooks = await measure('tool call `true`, no hooks', () => plain.call(call));
  const oneGate = await measure('tool call `true`, one command gate', async () => {
    const outcome = await gated.call(call);
    gateDurations.push(outcome.hooks[0]!.duration_ms);
  });
  const exec = await measure('Docker API exec `true` per call (dockerode)', () =>
    dockerExecTrue(docker, plain.sandbox.containerId),
  );
  const cli = await measure(
    '`docker exec CONTAINER true` per call (CLI)',
    () => execa('docker', ['exec', '-u', '1000', plain.sandbox.containerId, 'true']),
    CLI_ITERATIONS,
  );
  const gateCost = percentile(gateDurations, 50);

  const rows = [noHooks, oneGate, exec, cli];
  console.log(
    `hookbox call latency: ${ITERATIONS} calls each (${CLI_ITERATIONS} for the CLI) after ${WARMUP} warm-up, image ${controller.image}\n`,
  );
  console.log('| measurement | p50 ms | p95 ms |');
  console.log('| --- | ---: | ---: |');
  for (const row of rows)
    console.log(`| ${row.label} | ${row.p50.toFixed(2)} | ${row.p95.toFixed(2)} |`);
  console.log('');
  console.log(
    `docker exec (CLI) p50 / no-hook call p50:     ${(cli.p50 / noHooks.p50).toFixed(1)}×`,
  );
  console.log(
    `docker exec (CLI) p50 / gated call p50:       ${(cli.p50 / oneGate.p50).toFixed(1)}×`,
  );
  console.log(
    `API exec p50 / no-hook call p50:              ${(exec.p50 / noHooks.p50).toFixed(1)}×`,
  );
  console.log(
    `API exec p50 / gated call p50:                ${(exec.p50 / oneGate.p50).toFixed(1)}×`,
  );
  console.log(
    `gated p50 − no-hook p50 (gate overhead):      ${(oneGate.p50 - noHooks.p50).toFixed(2)} ms`,
  );
  console.log(
    `the gate process's own run time, p50:         ${gateCost.toFixed(2)} ms (measured by the sandbox agent)`,
  );
  console.log(
    `overhead beyond the gate process itself:      ${(oneGate.p50 - noHooks.p50 - gateCost).toFixed(2)} ms`,
  );
  const ratio = cli.p50 / noHooks.p50;
  console.log(
    `\ntarget, no-hook call at least ${TARGET_RATIO}× faster than per-call docker exec: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'} (${ratio.toFixed(1)}×)`,
  );
} finally {
  await controller.close();
}
