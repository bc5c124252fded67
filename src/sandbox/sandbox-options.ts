import { UserError } from '../errors/index.js';

/** Resource limits and behaviour of one environment's container. */
export interface SandboxOptions {
  /**
   * Memory limit, in MiB (swap included).
   * @default 1024
   */
  memoryMb?: number;
  /**
   * CPU limit, in cores.
   * @default 1
   */
  cpus?: number;
  /**
   * Most processes (and threads) the container may hold at once.
   * @default 256
   */
  pidsLimit?: number;
  /**
   * Gives tool code a writable tmpfs at /tmp (size-limited). Without it nothing but /workspace is
   * writable.
   * @default false
   */
  writableTmp?: boolean;
  /**
   * Size of the /tmp tmpfs when `writableTmp` is set, in MiB.
   * @default 64
   */
  writableTmpMb?: number;
  /**
   * Size of the environment's /workspace, in MiB: a filesystem of its own, so writes past it fail
   * with "No space left on device" and the host's disk holds no more than this for it. 0: no limit
   * (a plain Docker volume). Needs a controller that is root on the engine's host; elsewhere
   * workspaces are not limited (docs/security.md, "Workspace disk").
   * @default 1024
   */
  diskMb?: number;
  /**
   * The engine's OCI runtime for this container: `runc`, or `runsc` for gVisor (the engine must know
   * it; `npm run setup` registers runsc, docs/gvisor.md). Unset: the controller's default.
   * @default 'runc'
   */
  runtime?: string;
}

export const SANDBOX_DEFAULTS = {
  memoryMb: 1024,
  cpus: 1,
  pidsLimit: 256,
  writableTmp: false,
  writableTmpMb: 64,
  diskMb: 1024,
  runtime: 'runc',
} as const satisfies Required<SandboxOptions>;

/** What an OCI runtime's name may look like (Docker's own rule for `runtimes` keys, tightened). */
const RUNTIME_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * Checks a runtime name (`sandbox.runtime`, `--runtime`): a bad one is the caller's mistake, named
 * before any container is made. Whether the engine knows it is the engine's to say.
 */
export function checkRuntimeName(runtime: string, field: string): string {
  if (!RUNTIME_NAME.test(runtime))
    throw new UserError(
      'invalid_argument',
      `${field}: must be an OCI runtime name such as "runc" or "runsc" (lower-case letters, digits, ".", "_", "-"; got ${JSON.stringify(runtime)})`,
      { details: { field } },
    );
  return runtime;
}

/** Where things are inside the sandbox: defined once, with the agent protocol (docs/agent-protocol.md). */
export { SANDBOX_PATHS } from './protocol/paths.js';

/** The agent keeps only what it needs to switch users and clean up (docs/contract.md §2). */
export const AGENT_CAPABILITIES = ['SETUID', 'SETGID', 'KILL'];

/**
 * Every container has a private IPC namespace in which no System V shared memory segment, message
 * queue or semaphore set and no POSIX message queue can be made: each would outlive the call that
 * made it, keep data between calls outside /workspace, and (shared memory) hold memory no process
 * kill frees. (README, Security model.)
 */
export const IPC_SYSCTLS: Record<string, string> = {
  'kernel.shmmni': '0',
  'kernel.msgmni': '0',
  'kernel.sem': '0 0 0 0',
  'fs.mqueue.queues_max': '0',
};
