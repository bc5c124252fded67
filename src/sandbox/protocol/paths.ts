/**
 * Where things are inside the sandbox. Defined here once: the sandbox agent reads them from the
 * protocol document generated from this folder (sandbox-image/agent/protocol.schema.json, docs/agent-protocol.md),
 * and sandbox-image/Dockerfile makes the folders.
 */
export const SANDBOX_PATHS = {
  /** Tool code's working folder, the environment's files. */
  workspace: '/workspace',
  /** The gates, read-only for everyone in the container (docs/contract.md §2). */
  agents: '/.agents',
  /** The same volume as /.agents, read-only, inside the workspace. */
  agentsMirror: '/workspace/.agents',
  /** The only writable mount of the gates' volume: the agent (root) writes the gates here. */
  agentsWritable: '/opt/hookbox/agents-rw',
  /** The hooks' own state folder, owned by the hook user. */
  stateDir: '/var/lib/hookbox/state',
  /** Tool code's TMPDIR, made again before each call. */
  toolTmp: '/workspace/.tmp',
  /** The setuid-free launcher that drops to the tool or hook user. */
  spawnAs: '/opt/hookbox/bin/spawn-as',
  /**
   * A root-only tmpfs where the agent listens on `agent.sock`, the controller's faster way to it
   * (docs/agent-protocol.md, "The stream").
   */
  agentChannel: '/opt/hookbox/channel',
} as const;
