// The options of Controller.start, and the default runtime they resolve to.
import type { SnapshotOptions } from '../snapshots/snapshot-options.js';
import type { Hook } from '../hooks/controller-hooks/hook.js';
import type { AuditRetention } from '../record/audit-retention.js';
import type { Logger } from '../record/logger.js';
import type { EgressSettings } from '../network/environment-egress.js';
import type { Backend } from '../sandbox/backend.js';
import type { BuildProgress } from '../sandbox/image.js';
import { checkRuntimeName, SANDBOX_DEFAULTS } from '../sandbox/sandbox-options.js';
import type { WarmPoolOptions } from './warm-pool.js';
import type { ControllerStateStore } from '../state/store.js';
import type { Templates } from '../templates/templates.js';

export interface ControllerOptions {
  /**
   * Where sandboxes run (docs/kubernetes.md, "What each backend offers").
   * @default a DockerBackend on the local Docker socket
   */
  backend?: Backend;
  logger?: Logger;
  /** Folder for audit logs. @default $HOOKBOX_HOME or ~/.hookbox */
  home?: string;
  /**
   * Start a Docker engine if none answers (installs Debian's docker.io where allowed).
   * @default true
   */
  startEngine?: boolean;
  /** Progress of a first-time image build, for a terminal. */
  onProgress?: BuildProgress;
  /**
   * The operator's controller-side hooks and policies (`PolicyEnforcer` is one). They run before the
   * sandbox gates, outside the sandbox, in this order. @default []
   */
  hooks?: readonly Hook[];
  /** Keep hardened environments ready, so handing one out costs only the injection of sources. */
  pool?: WarmPoolOptions;
  /**
   * Warm pools of other templates, by template name (`{ full: { size: 1 } }`); `pool` is the
   * `default` template's. Each name must resolve at start (a shipped one is built then).
   * @default {}
   */
  pools?: Record<string, WarmPoolOptions>;
  /**
   * Remove, at start, containers and volumes left by hookbox controllers that are gone (a process
   * killed before it could clean up), except those a state file still lists for its controller to
   * come back to. See docs/operations.md, Leftovers.
   * @default true
   */
  reapOrphansOnStart?: boolean;
  /**
   * Also reap orphans every this many milliseconds while the controller runs (0: never).
   * @default 0
   */
  reapIntervalMs?: number;
  /** Snapshots' TTL (docs/environments.md, "Snapshots and forks"). @default { ttlMs: 24 h } */
  snapshots?: SnapshotOptions;
  /**
   * Remove audit logs past this retention each time orphans are reaped (at start and every
   * `reapIntervalMs`); the logs of environments that still exist are kept. `hookbox serve` uses the
   * defaults (30 days, 1024 MiB). @default none (audit logs are kept until `hookbox gc`)
   */
  auditRetention?: AuditRetention;
  /**
   * A SQLite file for durable state. With it, a restarted controller (clean or `kill -9`) finds its
   * live environments again and re-attaches to them. @default none (state in memory only)
   */
  stateFile?: string;
  /**
   * PostgreSQL for durable state instead of a file (`postgres://…`): several controller replicas
   * share it, and any of them serves an environment another made (docs/kubernetes.md, Several
   * replicas). @default none
   */
  stateUrl?: string;
  /**
   * How environments with a `network.allowlist` reach out: extra CAs for hook requests' upstream
   * TLS, the proxy sockets' folder, and (tests only) name overrides. See docs/network.md.
   */
  egress?: EgressSettings;
  /**
   * The OCI runtime of environments that do not name one in `sandbox.runtime` (and of the warm
   * pool): `runsc` runs every sandbox under gVisor (docs/gvisor.md).
   * @default $HOOKBOX_RUNTIME, else 'runc'
   */
  runtime?: string;
  /**
   * Use this sandbox image as it is, without checking or building it: the Kubernetes backend's
   * registry reference (docs/kubernetes.md). @default the image built from this checkout
   */
  image?: string;
  /**
   * Keep each command handler's next process started ahead of its event (docs/gates.md, "Prestart
   * and workers"); a handler can still opt out with `"prestart": false`. The environment variable
   * `HOOKBOX_PRESTART=off` turns it off where this option is not given.
   * @default true
   */
  prestartHooks?: boolean;
  /**
   * Whether files-API writes and deletes meet the sandbox gates and controller hooks as the
   * vocabulary's write or delete tool (docs/environments.md, "Files and the gates"). Turn off only
   * where the API's clients are trusted more than the model.
   * @default true
   */
  filesApiGates?: boolean;
  /**
   * The key stored credentials are sealed with (docs/credentials.md, "The key"): 32 bytes as 64 hex
   * digits or base64, or a passphrase of at least 32 characters. Without it no credential can be
   * stored or used. @default $HOOKBOX_SECRET_KEY, read at each use
   */
  secretKey?: string;
}

/** The controller's default runtime: its option, else $HOOKBOX_RUNTIME, else runc. */
/**
 * What {@link Controller.start} hands the controller it makes, once its engine, image, state and
 * templates are ready: every field it keeps, given at construction rather than set afterwards.
 */
export interface ControllerParts {
  /** Where its sandboxes run: a runtime, and images and networks where the backend has them. */
  backend: Backend;
  logger: Logger;
  home: string;
  image: string;
  hooks: readonly Hook[];
  pools: Map<string, { image: string; options: WarmPoolOptions }>;
  state: ControllerStateStore | undefined;
  templates: Templates;
  /** The default OCI runtime of its sandboxes. */
  runtime: string;
  secretKey: string | undefined;
  egress: EgressSettings | undefined;
  prestartHooks: boolean;
  filesApiGates: boolean;
  snapshots: SnapshotOptions | undefined;
}

export function defaultRuntime(option: string | undefined): string {
  if (option !== undefined) return checkRuntimeName(option, 'runtime');
  const fromEnv = process.env.HOOKBOX_RUNTIME;
  if (fromEnv) return checkRuntimeName(fromEnv, 'HOOKBOX_RUNTIME');
  return SANDBOX_DEFAULTS.runtime;
}
