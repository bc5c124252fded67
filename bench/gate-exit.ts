// `npm run bench:gate-exit`: what a prestarted gate process costs from its payload to its exit,
// without hookbox. In one container of the sandbox image, a python driver starts each process
// ahead (as the agent does), waits, writes the payload, closes stdin, and times the first byte of
// the answer and the exit. Rounds interleave the seed gate (examples/security-gate), the same
// gate with docs/gates.md's `os._exit(0)` line, and a baseline bash that reads the payload and
// prints `{}`. This is the floor under "seed gate prestarted" in `npm run bench`: hookbox cannot
// answer before the gate's exit, whose code is part of the answer (docs/gates.md, "Prestart and
// workers").
import { execa } from 'execa';
import { imageTags } from '../src/sandbox/image.js';
import { seedGateScript, withExitLine } from './seed-sources.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
/** How long each process waits, started, before its payload: its imports are done by then. */
const AHEAD_MS = Number(process.env.BENCH_AHEAD_MS ?? 400);

const seed = seedGateScript();

const DRIVER = `
import json, os, statistics, subprocess, sys, time
seed, seed_exit, rounds, ahead = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]) / 1000
open("/tmp/seed.py", "w").write(seed)
open("/tmp/seed_exit.py", "w").write(seed_exit)
payload = json.dumps({"tool_call": {"name": "code_execution", "args": {"code": "true"}},
                      "environment_id": "env_bench"}).encode()
kinds = {
    "seed gate": ["python3", "/tmp/seed.py"],
    "seed gate + os._exit(0)": ["python3", "/tmp/seed_exit.py"],
    "bash baseline (read, print {})": ["bash", "-c", "read -r line; echo '{}'"],
}
env = dict(os.environ, PYTHONSAFEPATH="1", PYTHONDONTWRITEBYTECODE="1")
times = {k: ([], []) for k in kinds}
for _ in range(rounds):
    for kind, cmd in kinds.items():
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd="/tmp")
        time.sleep(ahead)
        t0 = time.perf_counter()
        p.stdin.write(payload + b"\\n")
        p.stdin.close()
        p.stdout.read(1)
        t1 = time.perf_counter()
        p.stdout.read()
        p.wait()
        t2 = time.perf_counter()
        times[kind][0].append((t1 - t0) * 1000)
        times[kind][1].append((t2 - t0) * 1000)
print(json.dumps({k: [statistics.median(a), statistics.median(b)] for k, (a, b) in times.items()}))
`;

const image = imageTags().sandbox;
const { stdout } = await execa('docker', [
  'run',
  '--rm',
  '--network',
  'none',
  '--entrypoint',
  'python3',
  image,
  '-c',
  DRIVER,
  seed,
  withExitLine(seed),
  String(ROUNDS),
  String(AHEAD_MS),
]);
const medians = JSON.parse(stdout) as Record<string, [number, number]>;
const baseline = medians['bash baseline (read, print {})']![1];
console.log(
  `prestarted gate processes from payload to exit, ${new Date().toISOString().slice(0, 10)}: ${ROUNDS} interleaved rounds, each process started ${AHEAD_MS} ms ahead, image ${image}\n`,
);
console.log('| process | answer p50 ms | exit p50 ms | exit over the bash baseline |');
console.log('| --- | ---: | ---: | ---: |');
for (const [kind, [answer, exit]] of Object.entries(medians))
  console.log(
    `| ${kind} | ${answer.toFixed(2)} | ${exit.toFixed(2)} | ${(exit / baseline).toFixed(2)}x |`,
  );
