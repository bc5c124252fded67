import { join, resolve } from 'node:path';
import { SECRET_KEY_VARIABLE, secretKeyWarning } from '../../credentials/secret-key.js';
import { hookboxHome } from '../../paths.js';
import { Controller } from '../../controller/controller.js';
import { UserError } from '../../errors/index.js';
import type { Hook } from '../../hooks/controller-hooks/hook.js';
import { loadHookModule } from '../../hooks/controller-hooks/hook-module.js';
import { loadPolicyFile } from '../../hooks/controller-hooks/policy-file.js';
import { createLogger } from '../../record/logger.js';
import { SqliteInteractionStore } from '../../state/sqlite-interaction-store.js';
import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../backends/docker/docker-container-client.js';
import { ensureControllerImage } from '../../server/controller-image.js';
import {
  checkListenSafety,
  DEFAULT_HOST,
  DEFAULT_PORT,
  loadTenantKeys,
  startServer,
} from '../../server/index.js';
import { runtimeOption } from '../runtime-option.js';
import { defaultMaxEnvironments } from '../../tenants/quotas.js';
import { DEFAULT_SHUTDOWN_GRACE_S, stopWithin } from '../shutdown.js';
import type { CliIo } from '../io.js';
import { buildProgressFor, createProgress } from '../progress.js';
import { SqliteStateAdapter } from '../../state/sqlite-state-adapter.js';
import { SharedInteractionStore } from '../../state/shared-interaction-store.js';
import { checkStateUrl } from '../../state/postgres-state-store.js';
import type { InteractionStore } from '../../interactions/store.js';
import type { Logger } from '../../record/logger.js';
import type { ContainerClient } from '../../sandbox/container-client.js';

export interface ServeCommandOptions {
  host?: string;
  port?: string;
  apiKeysFile?: string;
  stateFile?: string;
  /** False with `--no-state`: memory only. @default true */
  state?: boolean;
  poolSize?: string;
  pool?: string;
  hooks?: string[];
  policy?: string;
  metricsPort?: string;
  /** `--runtime`: the sandboxes' OCI runtime (runsc: gVisor). */
  runtime?: string;
  /** `--state-url postgres://…`: state shared by several replicas. */
  stateUrl?: string;
  /** `--backend`: docker (default) or kubernetes. */
  backend?: string;
  namespace?: string;
  sandboxImage?: string;
  runtimeClass?: string[];
  allowedHosts?: string;
  maxEnvironments?: string;
  maxConnectionsPerAddress?: string;
  /** False with `--no-files-api-gates`. */
  filesApiGates?: boolean;
  /** `--snapshot-ttl <seconds>` (docs/environments.md, "Snapshots and forks"). */
  snapshotTtl?: string;
  /** `--shutdown-grace <seconds>`: how long SIGTERM waits for interactions in flight. @default 25 */
  shutdownGrace?: string;
}

/** `--backend`: where sandboxes run. Kubernetes brings its client and the image to use as is. */
async function backendOptions(
  options: ServeCommandOptions,
  logger: Logger,
): Promise<{ client?: ContainerClient; image?: string; startEngine?: boolean }> {
  const backend = options.backend ?? 'docker';
  if (backend === 'docker') return {};
  if (backend === 'kubernetes') {
    const { kubernetesBackend } = await import('../kubernetes-backend.js');
    return { ...kubernetesBackend(options, logger), startEngine: false };
  }
  throw new UserError(
    'invalid_argument',
    `--backend: must be docker or kubernetes (got ${JSON.stringify(backend)})`,
    { details: { field: '--backend' } },
  );
}

function wholeNumber(value: string | undefined, option: string, min: number, max: number) {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new UserError(
      'invalid_argument',
      `${option}: must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`,
      { details: { field: option } },
    );
  }
  return number;
}

function parsePoolSize(value: string | undefined): number {
  if (value === undefined) return 0;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 0 || size > 100) {
    throw new UserError(
      'invalid_argument',
      `--pool-size: must be a whole number from 0 to 100 (got ${JSON.stringify(value)})`,
      {
        details: { field: '--pool-size' },
      },
    );
  }
  return size;
}

/**
 * `--pool default=4,full=1`: warm environments per template (a bare number is the default
 * template's, like `--pool-size`).
 */
export function parsePoolSpec(value: string | undefined): Record<string, number> {
  if (value === undefined) return {};
  const sizes: Record<string, number> = {};
  for (const part of value.split(',')) {
    const match = /^\s*(?:([a-z0-9][a-z0-9_.-]{0,62})\s*=\s*)?(\d{1,3})\s*$/.exec(part);
    const size = match ? Number(match[2]) : NaN;
    if (!match || size > 100)
      throw new UserError(
        'invalid_argument',
        `--pool: ${JSON.stringify(part)} must be TEMPLATE=N with N from 0 to 100, e.g. default=4,full=1`,
        { details: { field: '--pool' } },
      );
    sizes[match[1] ?? 'default'] = size;
  }
  return sizes;
}

/** The operator's controller-side hooks: the policy file first, so a user hook's allow cannot skip it. */
async function operatorHooks(options: ServeCommandOptions): Promise<Hook[]> {
  const hooks: Hook[] = [];
  if (options.policy) hooks.push(await loadPolicyFile(options.policy));
  for (const module of options.hooks ?? []) hooks.push(...(await loadHookModule(module)));
  return hooks;
}

function parsePort(value: string | undefined, field = '--port'): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UserError(
      'invalid_argument',
      `${field}: must be a whole number from 0 to 65535 (got ${JSON.stringify(value)})`,
      {
        details: { field },
      },
    );
  }
  return port;
}

/**
 * `hookbox serve`: the HTTP API until SIGTERM or SIGINT; then it stops accepting, lets the
 * interactions in flight finish, deletes every environment it made and returns 0. A second signal
 * exits at once (leftovers are found by `hookbox gc`).
 */
/**
 * Where `hookbox serve` keeps its state: durable by default, in `$HOOKBOX_HOME/state.db`
 * (docs/operations.md, State); `--state-file` names another file, `--no-state` keeps it in memory.
 */
export function stateFileOf(options: ServeCommandOptions): string | undefined {
  if (options.state === false) {
    if (options.stateFile !== undefined)
      throw new UserError('invalid_argument', '--no-state: cannot be given with --state-file', {
        details: { field: '--no-state' },
      });
    return undefined;
  }
  // Shared state in PostgreSQL replaces the file (docs/kubernetes.md); both at once is refused below.
  if (options.stateUrl !== undefined && options.stateFile === undefined) return undefined;
  return resolve(options.stateFile ?? join(hookboxHome(), 'state.db'));
}

/**
 * A listen failure the user can mend (a host that does not resolve or is not this machine's, a port
 * in use or reserved) as a UserError naming the flag; anything else is left as it is.
 */
function listenError(
  error: unknown,
  host: string,
  metricsPort: number | undefined,
): UserError | undefined {
  const { code, port } = (error ?? {}) as { code?: unknown; port?: unknown };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL')
    return new UserError(
      'invalid_argument',
      `--host: cannot listen on ${JSON.stringify(host)} (${code}: not an address of this machine)`,
      { details: { field: '--host' } },
    );
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    const field = metricsPort !== undefined && port === metricsPort ? '--metrics-port' : '--port';
    const why = code === 'EADDRINUSE' ? 'in use' : 'reserved (ports below 1024 need root)';
    return new UserError('invalid_argument', `${field}: port ${String(port)} is ${why}`, {
      details: { field },
    });
  }
  return undefined;
}

export async function serveCommand(options: ServeCommandOptions, io: CliIo): Promise<number> {
  const host = options.host ?? DEFAULT_HOST;
  const port = parsePort(options.port);
  const metricsPort =
    options.metricsPort === undefined
      ? undefined
      : parsePort(options.metricsPort, '--metrics-port');
  const tenantKeys = loadTenantKeys(
    options.apiKeysFile === undefined ? {} : { file: options.apiKeysFile },
  );
  checkListenSafety(host, tenantKeys);
  const maxEnvironments =
    wholeNumber(options.maxEnvironments, '--max-environments', 1, 100_000) ??
    defaultMaxEnvironments();
  const perAddress = wholeNumber(
    options.maxConnectionsPerAddress,
    '--max-connections-per-address',
    1,
    1_000_000,
  );
  const allowedHosts = (options.allowedHosts ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const poolSize = parsePoolSize(options.poolSize);
  const poolSizes = parsePoolSpec(options.pool);
  if (options.poolSize !== undefined && poolSizes.default !== undefined)
    throw new UserError(
      'invalid_argument',
      '--pool: give the default size in --pool or --pool-size, not both',
      {
        details: { field: '--pool' },
      },
    );
  const pools = Object.fromEntries(
    Object.entries(poolSizes)
      .filter(([template, size]) => size > 0 && template !== 'default')
      .map(([template, size]) => [template, { size }]),
  );
  const defaultPool = poolSizes.default ?? poolSize;
  const shutdownGraceS =
    wholeNumber(options.shutdownGrace, '--shutdown-grace', 0, 3600) ?? DEFAULT_SHUTDOWN_GRACE_S;
  const stateFile = stateFileOf(options);
  const hooks = await operatorHooks(options);
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'info' });
  if (options.stateUrl !== undefined && options.stateFile !== undefined)
    throw new UserError(
      'invalid_argument',
      '--state-url: give --state-url or --state-file, not both',
      {
        details: { field: '--state-url' },
      },
    );
  const controller = await Controller.start({
    ...(await backendOptions(options, logger)),
    ...(options.stateUrl !== undefined ? { stateUrl: checkStateUrl(options.stateUrl) } : {}),
    logger,
    hooks,
    reapOrphansOnStart: true,
    reapIntervalMs: 10 * 60_000,
    ...runtimeOption(options.runtime),
    auditRetention: {},
    ...(stateFile ? { stateFile } : {}),
    ...(defaultPool > 0 ? { pool: { size: defaultPool } } : {}),
    pools,
    filesApiGates: options.filesApiGates !== false,
    ...(options.snapshotTtl !== undefined
      ? {
          snapshots: {
            ttlMs: wholeNumber(options.snapshotTtl, '--snapshot-ttl', 1, 365 * 86_400)! * 1000,
          },
        }
      : {}),
  });
  let store: InteractionStore | undefined;
  if (controller.state instanceof SqliteStateAdapter) {
    const sqlite = new SqliteInteractionStore(controller.state.sqlite);
    store = sqlite;
    const interrupted = sqlite.markInterrupted();
    if (interrupted > 0)
      io.stderr(
        `hookbox serve: ${interrupted} interaction(s) were running when the last controller stopped; marked failed\n`,
      );
  } else if (controller.state) {
    // Shared state: an interaction in progress may be another replica's, running now; it is not
    // marked failed here (docs/kubernetes.md, Several replicas).
    store = new SharedInteractionStore(controller.state);
  }
  const server = await startServer({
    host,
    port,
    tenantKeys,
    allowedHosts,
    maxEnvironments,
    ...(perAddress === undefined ? {} : { limits: { maxConnectionsPerAddress: perAddress } }),
    logger,
    controller,
    ...(store ? { store, keepEnvironmentsOnClose: true } : {}),
    ...(metricsPort === undefined ? {} : { metricsPort }),
  }).catch((error: unknown) => {
    throw listenError(error, host, metricsPort) ?? error;
  });
  io.stderr(
    `hookbox serve: listening on ${server.url} (${tenantKeys.length > 0 ? `${tenantKeys.length} API key(s), ${new Set(tenantKeys.map((key) => key.name)).size} tenant(s)` : 'no API key: loopback only'}; at most ${maxEnvironments} environments; state ${stateFile ?? (options.stateUrl !== undefined ? 'in PostgreSQL' : 'in memory only (--no-state)')}); console at ${server.url}/console\n`,
  );
  if (server.metricsUrl)
    io.stderr(`hookbox serve: metrics (no key, loopback only) at ${server.metricsUrl}/metrics\n`);
  const credentialsOff = secretKeyWarning(process.env[SECRET_KEY_VARIABLE]);
  if (credentialsOff) io.stderr(`hookbox serve: warning: ${credentialsOff}\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  const force = (again: NodeJS.Signals) => {
    io.stderr(`hookbox serve: ${again} again: exiting now; \`hookbox gc\` removes what is left\n`);
    process.exit(1);
  };
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  // A durable server leaves its environments running for the next one (docs/operations.md, State).
  const then = store
    ? `then leaving the environments running for the next server (state ${stateFile ?? 'in PostgreSQL'})`
    : 'then deleting the environments';
  io.stderr(
    `hookbox serve: ${signal}: finishing ${server.service.inFlight} interaction(s) in flight (at most ${shutdownGraceS} s), ${then}\n`,
  );
  await stopWithin(shutdownGraceS * 1000, () => server.close(), io);
  io.stderr('hookbox serve: stopped\n');
  return 0;
}

export interface ControllerImageCommandOptions {
  base?: string;
}

/** `hookbox image controller`: builds (or finds cached) the controller image from the Dockerfile. */
export async function controllerImageCommand(
  options: ControllerImageCommandOptions,
  io: CliIo,
): Promise<number> {
  const logger = defaultLogger();
  const progress = createProgress(io);
  let tag: string;
  try {
    tag = await ensureControllerImage(new DockerContainerClient(logger), logger, {
      ...(options.base ? { base: options.base } : {}),
      onProgress: buildProgressFor(io, progress),
    });
  } finally {
    progress.done();
  }
  io.stdout(`${tag}\n`);
  return 0;
}
