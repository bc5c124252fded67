// Waiting until an environment's container has stopped using the CPU, from its cgroup on the
// engine's host: after a call, the agent starts the next call's processes (a python gate's start
// is 60-80 ms of CPU on a loaded 2-core machine), and a fixed pause shorter than that lets one
// environment's start-up fall on the next scenario's call (docs/gates.md, "Prestart and workers").
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';

const POLL_MS = 5;
/** Settled: less than this much CPU over one poll interval (10% of a core). */
const QUIET_US_PER_POLL = 500;
const GIVE_UP_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A reader of the container's CPU time in µs (cgroup v1 cpuacct or v2 cpu.stat), or null. */
export async function cpuClockOf(
  docker: Docker,
  containerId: string,
): Promise<(() => number) | null> {
  const info = await docker.getContainer(containerId).inspect();
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${info.State.Pid}/cgroup`, 'utf8').trim().split('\n');
  } catch {
    return null; // the engine runs elsewhere: no settling, only the fixed pause
  }
  for (const line of lines) {
    const [, controllers, path] = line.split(':');
    if (controllers?.split(',').includes('cpuacct')) {
      const file = `/sys/fs/cgroup/cpuacct${path}/cpuacct.usage`;
      return () => Number(readFileSync(file, 'utf8')) / 1000;
    }
  }
  const unified = lines.find((line) => line.startsWith('0::'));
  if (!unified) return null;
  const file = `/sys/fs/cgroup${unified.slice(3)}/cpu.stat`;
  return () => Number(/usage_usec (\d+)/.exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
}

/** Resolves once the clock advances by less than a tenth of a core over one poll (or after 2 s). */
export async function settle(clock: (() => number) | null): Promise<void> {
  if (!clock) return;
  const deadline = performance.now() + GIVE_UP_MS;
  let last = clock();
  while (performance.now() < deadline) {
    await sleep(POLL_MS);
    const now = clock();
    if (now - last < QUIET_US_PER_POLL) return;
    last = now;
  }
}
