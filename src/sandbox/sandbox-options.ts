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
}

export const SANDBOX_DEFAULTS = {
  memoryMb: 1024,
  cpus: 1,
  pidsLimit: 256,
  writableTmp: false,
  writableTmpMb: 64,
} as const satisfies Required<SandboxOptions>;

/** Where things are inside the sandbox (sandbox-image/Dockerfile makes them). */
export const SANDBOX_PATHS = {
  workspace: '/workspace',
  agents: '/.agents',
  agentsMirror: '/workspace/.agents',
  agentsWritable: '/opt/hookbox/agents-rw',
  stateDir: '/var/lib/hookbox/state',
} as const;

/** The agent keeps only what it needs to switch users and clean up (SPEC §2). */
export const AGENT_CAPABILITIES = ['SETUID', 'SETGID', 'KILL'];
