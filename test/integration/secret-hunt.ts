// The secret hunt (docs/network.md, "Threat model"; docs/credentials.md): searches a sandbox for a
// secret everywhere tool code or root could find it — every file as each user, every process's
// environment and command line, every process's memory read from the host, and the containers'
// configuration. Used by network-http-hooks.test.ts (transform secrets) and credentials.test.ts
// (credentials).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** Run without blocking: the tests' server and client share this process's event loop. */
const run = async (command: string, args: string[]): Promise<string> =>
  (await promisify(execFile)(command, args, { maxBuffer: 64 * 1024 * 1024 })).stdout;

/**
 * Searches the sandbox container through `docker exec` as root (with the sandbox's capabilities:
 * no-new-privileges forbids more): every file, walked as root, the tool user and the hook user in
 * turn (root has no DAC override here, so each user's own files are read as that user), and every
 * process's environment and command line. Prints the places that hold the needle, which comes in
 * two halves so that this process's own argv does not hold it.
 */
export const ROOT_SEARCH = `
import json, os, sys
needle = (sys.argv[1] + sys.argv[2]).encode()
me = str(os.getpid())

def walk():
    found = []
    for root, dirs, files in os.walk("/"):
        if root == "/":
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
        for name in files:
            path = os.path.join(root, name)
            try:
                if os.path.islink(path) or os.path.getsize(path) > 64 * 1024 * 1024:
                    continue
                with open(path, "rb") as handle:
                    if needle in handle.read():
                        found.append(path)
            except OSError:
                pass
    return found

def walk_as(uid):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        os.write(write, json.dumps(walk()).encode())
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data)

found = []
for uid in (0, 1000, 1001):
    found += walk_as(uid)
for pid in [p for p in os.listdir("/proc") if p.isdigit() and p != me]:
    for part in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{part}", "rb") as handle:
                if needle in handle.read():
                    found.append(f"/proc/{pid}/{part}")
        except OSError:
            pass
print(json.dumps(sorted(set(found))))
`;

/**
 * Scans the memory of processes from the host (root there, so also the sandbox agent, which is not
 * dumpable once it has switched its filesystem uid). Prints the pids whose memory holds the needle.
 */
export const MEMORY_SEARCH = `
import json, sys
needle = (sys.argv[1] + sys.argv[2]).encode()
found, scanned = [], 0
for pid in sys.argv[3:]:
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
            scanned += 1
            for line in maps:
                fields = line.split()
                if "r" not in fields[1]:
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                try:
                    mem.seek(start)
                    if needle in mem.read(end - start):
                        found.append(pid)
                except (OSError, OverflowError, ValueError):
                    pass
    except OSError:
        pass
print(json.dumps({"found": found, "scanned": scanned}))
`;

/** Where a secret was found in one environment's sandbox; every list empty means nowhere. */
export interface HuntResult {
  /** Files and /proc/<pid>/{environ,cmdline} holding it, searched as root, uid 1000 and 1001. */
  places: string[];
  /** Pids of the sandbox whose memory holds it. */
  memory: string[];
  /** How many processes' memory was read (at least tini and the agent when it works). */
  scanned: number;
  /** Whether `docker inspect` of the sandbox and its relay shows it. */
  inConfiguration: boolean;
}

/** Hunts `secret` in the sandbox container (and its relay's configuration), from the host as root. */
export async function huntSecret(
  containerId: string,
  secret: string,
  environmentId: string,
): Promise<HuntResult> {
  const half = secret.length >> 1;
  const halves = [secret.slice(0, half), secret.slice(half)];
  const places = JSON.parse(
    await run('docker', ['exec', '-u', '0', containerId, 'python3', '-c', ROOT_SEARCH, ...halves]),
  ) as string[];
  const pids = (await run('docker', ['top', containerId, '-eo', 'pid']))
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter(Boolean);
  const memory = JSON.parse(await run('python3', ['-c', MEMORY_SEARCH, ...halves, ...pids])) as {
    found: string[];
    scanned: number;
  };
  const containers = (
    await run('docker', ['ps', '-aq', '--filter', `label=dev.hookbox.environment=${environmentId}`])
  )
    .trim()
    .split('\n')
    .filter(Boolean);
  let inConfiguration = false;
  for (const id of containers)
    if ((await run('docker', ['inspect', id])).includes(secret)) inConfiguration = true;
  return { places, memory: memory.found, scanned: memory.scanned, inConfiguration };
}

/** Whether this process's memory holds `secret` (the control: the hunt finds what is there). */
export async function inOwnMemory(secret: string): Promise<boolean> {
  const half = secret.length >> 1;
  const own = JSON.parse(
    await run('python3', [
      '-c',
      MEMORY_SEARCH,
      secret.slice(0, half),
      secret.slice(half),
      String(process.pid),
    ]),
  ) as { found: string[] };
  return own.found.includes(String(process.pid));
}
