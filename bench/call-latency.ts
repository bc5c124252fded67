// `npm run bench`: p50/p95 of a `true` tool call with no hooks; with the seed python gate and with
// the shipped destructive gate, each spawned per event (`"prestart": false`), prestarted, and as a
// worker (and the seed gate with docs/gates.md's `os._exit(0)` line, prestarted); and of per-call
// engine exec (Docker API and CLI) on the same image. The gated scenarios and the no-hook baseline
// run interleaved, one call of each per round, so a slow moment of the machine falls on all of them
// alike. After each call the bench waits until that environment's container is idle (its next
// processes are up: bench/settle.ts), then pauses, as a model's turn gives (docs/gates.md,
// "Prestart and workers"). The execs run after the scenarios, each after the same wait and beside
// a no-hook call of its own round; the ratio is also printed as the median of those rounds' ratios.
// Then the memory and start-up CPU of the processes waiting in each environment.
import Docker from 'dockerode';
import { execa } from 'execa';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { InlineSource } from '../src/config/sources.js';
import { Controller } from '../src/controller/controller.js';
import type { Environment } from '../src/controller/environment.js';
import { packageRoot } from '../src/paths.js';
import { createLogger } from '../src/record/logger.js';
import { seedGateSources, withExitLine } from './seed-sources.js';
import { cpuClockOf, settle } from './settle.js';

const ROUNDS = Number(process.env.BENCH_ITERATIONS ?? 100);
const EXEC_ITERATIONS = Math.min(ROUNDS, 50);
const WARMUP = 10;
/**
 * Pause after every call, ms, once the call's environment is idle again (the processes it starts
 * for its next call are up, so one environment's start-up does not fall on another's call). Two
 * calls of one environment are a round apart (a model's turn is far longer).
 */
const AFTER_CALL_MS = Number(process.env.BENCH_PAUSE_MS ?? 60);

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Row {
  label: string;
  p50: number;
  p95: number;
}

const SEED_PRESTARTED = 'seed python gate, prestarted (default)';
const DESTRUCTIVE_PRESTARTED = 'destructive gate, prestarted (default)';
const DESTRUCTIVE_WORKER = 'destructive gate, worker (`"worker": true`, as shipped)';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** hooks.json with one pre handler for code_execution running `command`, with `extra` fields. */
function gateJson(command: string, extra: Record<string, unknown>): InlineSource {
  const content = JSON.stringify({
    gate: {
      pre_tool_execution: [
        {
          matcher: 'code_execution',
          hooks: [{ type: 'command', command, timeout: 10, on_error: 'deny', ...extra }],
        },
      ],
    },
  });
  return { type: 'inline', target: '.agents/hooks.json', content };
}

/** The seed gate's own logic, able to run as a worker too (the seed script itself cannot). */
const SEED_AS_WORKER = `import sys, json, os
def decide(data):
    cmd = str(data.get("tool_call", {}).get("args", {}))
    if "rm -rf" in cmd:
        return {"decision": "deny", "reason": "Destructive command blocked by security gate."}
    return {"decision": "allow"}
if os.environ.get("HOOKBOX_WORKER") == "1":
    for line in sys.stdin:
        print(json.dumps(decide(json.loads(line)["event"])), flush=True)
else:
    print(json.dumps(decide(json.load(sys.stdin))))
`;

function seedSources(mode: 'spawn' | 'prestart' | 'worker' | 'prestart-exit'): InlineSource[] {
  if (mode === 'prestart-exit') {
    const [, script] = seedGateSources();
    return [
      gateJson('python3 /.agents/hooks-scripts/gate.py', { prestart: true }),
      { ...script!, content: withExitLine(script!.content) },
    ];
  }
  if (mode === 'worker')
    return [
      gateJson('python3 /.agents/hooks-scripts/gate.py', { worker: true }),
      { type: 'inline', target: '.agents/hooks-scripts/gate.py', content: SEED_AS_WORKER },
    ];
  const [, script] = seedGateSources();
  return [
    gateJson('python3 /.agents/hooks-scripts/gate.py', { prestart: mode === 'prestart' }),
    script!,
  ];
}

function destructiveSources(mode: 'spawn' | 'prestart' | 'worker'): InlineSource[] {
  const root = join(packageRoot(), 'hooks-scripts', 'destructive');
  const files: InlineSource[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name !== 'hooks.json' && !path.includes('__pycache__'))
        files.push({
          type: 'inline',
          target: `.agents/hooks-scripts/destructive/${relative(root, path)}`,
          content: readFileSync(path, 'utf8'),
        });
    }
  };
  walk(root);
  const extra = mode === 'worker' ? { worker: true } : { prestart: mode === 'prestart' };
  return [gateJson('python3 /.agents/hooks-scripts/destructive/gate.py', extra), ...files];
}

/** RSS and start-up CPU of every process waiting in an environment (from /proc, as root). */
async function waitingCost(environment: Environment): Promise<{ rssMb: number; cpuMs: number }> {
  const script =
    'for p in /proc/[0-9]*; do u=$(stat -c %u $p 2>/dev/null); case "$u" in 1000|1001) ' +
    'r=$(grep VmRSS $p/status | tr -s " " | cut -d" " -f2); c=$(cut -d" " -f1 $p/schedstat); echo "$r $c";; esac; done';
  const { stdout } = await execa('docker', [
    'exec',
    environment.sandbox.containerId,
    'sh',
    '-c',
    script,
  ]);
  let rssKb = 0;
  let cpuNs = 0;
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [rss, cpu] = line.split(' ').map(Number);
    rssKb += rss ?? 0;
    cpuNs += cpu ?? 0;
  }
  return { rssMb: rssKb / 1024, cpuMs: cpuNs / 1e6 };
}

const controller = await Controller.start({
  logger: createLogger({ level: 'silent' }),
  home: mkdtempSync(join(tmpdir(), 'hookbox-bench-')),
});
const call = { name: 'code_execution', args: { code: 'true' } };
const docker = new Docker();

try {
  const scenarios: {
    label: string;
    environment: Environment;
    samples: number[];
    hookMs: number[];
    clock: (() => number) | null;
  }[] = [];
  const add = async (label: string, sources: InlineSource[]) => {
    const environment = await controller.createEnvironment({ sources });
    scenarios.push({
      label,
      environment,
      samples: [],
      hookMs: [],
      clock: await cpuClockOf(docker, environment.sandbox.containerId),
    });
  };
  await add('tool call `true`, no hooks', []);
  await add('seed python gate, spawned per call (`"prestart": false`)', seedSources('spawn'));
  await add(SEED_PRESTARTED, seedSources('prestart'));
  await add(
    'seed python gate + `os._exit(0)` after its answer, prestarted',
    seedSources('prestart-exit'),
  );
  await add('seed python gate, worker (`"worker": true`)', seedSources('worker'));
  await add(
    'destructive gate, spawned per call (`"prestart": false`)',
    destructiveSources('spawn'),
  );
  await add(DESTRUCTIVE_PRESTARTED, destructiveSources('prestart'));
  await add(DESTRUCTIVE_WORKER, destructiveSources('worker'));
  const runners = new Map<string, Set<string>>();

  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const scenario of scenarios) {
      const started = performance.now();
      const outcome = await scenario.environment.call(call);
      const elapsed = performance.now() - started;
      if (outcome.blocked) throw new Error(`${scenario.label}: blocked: ${outcome.reason}`);
      if (round >= WARMUP) scenario.samples.push(elapsed);
      if (round >= WARMUP && outcome.hooks[0]) scenario.hookMs.push(outcome.hooks[0].duration_ms);
      for (const hook of outcome.hooks) {
        const seen = runners.get(scenario.label) ?? new Set<string>();
        seen.add(hook.runner ?? '?');
        runners.set(scenario.label, seen);
      }
      await settle(scenario.clock);
      await sleep(AFTER_CALL_MS);
    }
  }
  const plain = scenarios[0]!.environment;
  const plainClock = scenarios[0]!.clock;
  const execSamples: number[] = [];
  const cliSamples: number[] = [];
  // Each exec also against a no-hook call of its own round, both after the same idle wait: the
  // median of the per-round ratios does not depend on how loaded the machine was in which loop.
  const apiRatios: number[] = [];
  const cliRatios: number[] = [];
  const timed = async (run: () => Promise<unknown>) => {
    await settle(plainClock);
    await sleep(AFTER_CALL_MS);
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP + EXEC_ITERATIONS; i++) {
    const callBeforeApi = await timed(() => plain.call(call));
    const api = await timed(() => dockerExecTrue(docker, plain.sandbox.containerId));
    const callBeforeCli = await timed(() => plain.call(call));
    const cliMs = await timed(() =>
      execa('docker', ['exec', '-u', '1000', plain.sandbox.containerId, 'true']),
    );
    if (i < WARMUP) continue;
    execSamples.push(api);
    cliSamples.push(cliMs);
    apiRatios.push(api / callBeforeApi);
    cliRatios.push(cliMs / callBeforeCli);
  }

  const rows: (Row & { hookP50?: number })[] = scenarios.map((s) => ({
    label: s.label,
    p50: percentile(s.samples, 50),
    p95: percentile(s.samples, 95),
    ...(s.hookMs.length > 0 ? { hookP50: percentile(s.hookMs, 50) } : {}),
  }));
  const exec = {
    label: 'per-call Docker API exec `true` (dockerode)',
    p50: percentile(execSamples, 50),
    p95: percentile(execSamples, 95),
  };
  const cli = {
    label: 'per-call `docker exec CONTAINER true` (CLI)',
    p50: percentile(cliSamples, 50),
    p95: percentile(cliSamples, 95),
  };
  const noHooks = rows[0]!;
  console.log(
    `hookbox call latency, ${new Date().toISOString().slice(0, 10)}: ${ROUNDS} rounds (${EXEC_ITERATIONS} for exec, each beside a no-hook call) after ${WARMUP} warm-up, ${AFTER_CALL_MS} ms after each call once its environment is idle, at least ${AFTER_CALL_MS * scenarios.length} ms between two calls of one environment, image ${controller.image}\n`,
  );
  console.log(
    '| measurement | p50 ms | p95 ms | p50 over no-hook call | the hook in the agent, p50 | answered by |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | --- |');
  for (const row of [...rows, exec, cli] as (Row & { hookP50?: number })[]) {
    const over = rows.includes(row) && row !== noHooks ? (row.p50 - noHooks.p50).toFixed(2) : '';
    const hook = row.hookP50 === undefined ? '' : row.hookP50.toFixed(2);
    const by = [...(runners.get(row.label) ?? [])].join(', ');
    console.log(
      `| ${row.label} | ${row.p50.toFixed(2)} | ${row.p95.toFixed(2)} | ${over} | ${hook} | ${by} |`,
    );
  }
  const over = (start: string) =>
    rows.find((row) => row.label.startsWith(start))!.p50 - noHooks.p50;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log('\ntargets (printed, never asserted):');
  console.log(
    `  seed gate prestarted adds <= 3 ms p50:          ${verdict(over(SEED_PRESTARTED) <= 3)} (${over(SEED_PRESTARTED).toFixed(2)} ms)`,
  );
  console.log(
    `  destructive gate prestarted adds <= 5 ms p50:   ${verdict(over(DESTRUCTIVE_PRESTARTED) <= 5)} (${over(DESTRUCTIVE_PRESTARTED).toFixed(2)} ms)`,
  );
  console.log(
    `  destructive gate as worker adds <= 1 ms p50:    ${verdict(over(DESTRUCTIVE_WORKER) <= 1)} (${over(DESTRUCTIVE_WORKER).toFixed(2)} ms)`,
  );
  console.log(
    `  no-hook call >= 40x cheaper than API exec:      ${verdict(exec.p50 / noHooks.p50 >= 40)} (${(exec.p50 / noHooks.p50).toFixed(1)}x)`,
  );
  console.log(
    `  no-hook call >= 40x cheaper than CLI exec:      ${verdict(cli.p50 / noHooks.p50 >= 40)} (${(cli.p50 / noHooks.p50).toFixed(1)}x)`,
  );
  const apiRatio = percentile(apiRatios, 50);
  const cliRatio = percentile(cliRatios, 50);
  console.log(
    `  the same, each exec against a no-hook call of its round (median ratio): API ${verdict(apiRatio >= 40)} (${apiRatio.toFixed(1)}x), CLI ${verdict(cliRatio >= 40)} (${cliRatio.toFixed(1)}x)`,
  );

  console.log('\nprocesses waiting between calls (tool interpreter and hooks; RSS, start-up CPU):');
  console.log('| environment | RSS MiB | CPU ms spent starting them |');
  console.log('| --- | ---: | ---: |');
  await sleep(500);
  for (const scenario of scenarios) {
    const cost = await waitingCost(scenario.environment);
    console.log(`| ${scenario.label} | ${cost.rssMb.toFixed(1)} | ${cost.cpuMs.toFixed(1)} |`);
  }
} finally {
  await controller.close();
}
