import { resolve } from 'node:path';
import { Controller } from '../../environments/controller.js';
import { UserError } from '../../errors/index.js';
import type { Hook } from '../../policies/hook.js';
import { loadHookModule } from '../../policies/hook-module.js';
import { loadPolicyFile } from '../../policies/policy-file.js';
import { createLogger } from '../../record/logger.js';
import { SqliteInteractionStore } from '../../state/sqlite-interaction-store.js';
import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../sandbox/docker-container-client.js';
import { ensureControllerImage } from '../../server/controller-image.js';
import {
  checkListenSafety,
  DEFAULT_HOST,
  DEFAULT_PORT,
  loadApiKeys,
  startServer,
} from '../../server/index.js';
import type { CliIo } from '../io.js';
import { buildProgressFor, createProgress } from '../progress.js';

export interface ServeCommandOptions {
  host?: string;
  port?: string;
  apiKeysFile?: string;
  stateFile?: string;
  poolSize?: string;
  hooks?: string[];
  policy?: string;
  metricsPort?: string;
  /** False with `--no-files-api-gates`. */
  filesApiGates?: boolean;
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
export async function serveCommand(options: ServeCommandOptions, io: CliIo): Promise<number> {
  const host = options.host ?? DEFAULT_HOST;
  const port = parsePort(options.port);
  const metricsPort =
    options.metricsPort === undefined
      ? undefined
      : parsePort(options.metricsPort, '--metrics-port');
  const apiKeys = loadApiKeys(
    options.apiKeysFile === undefined ? {} : { file: options.apiKeysFile },
  );
  checkListenSafety(host, apiKeys);
  const poolSize = parsePoolSize(options.poolSize);
  const hooks = await operatorHooks(options);
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'info' });
  const controller = await Controller.start({
    logger,
    hooks,
    reapOrphansOnStart: true,
    reapIntervalMs: 10 * 60_000,
    filesApiGates: options.filesApiGates !== false,
    ...(options.stateFile ? { stateFile: resolve(options.stateFile) } : {}),
    ...(poolSize > 0 ? { pool: { size: poolSize } } : {}),
  });
  let store: SqliteInteractionStore | undefined;
  if (controller.state) {
    store = new SqliteInteractionStore(controller.state);
    const interrupted = store.markInterrupted();
    if (interrupted > 0)
      io.stderr(
        `hookbox serve: ${interrupted} interaction(s) were running when the last controller stopped; marked failed\n`,
      );
  }
  const server = await startServer({
    host,
    port,
    apiKeys,
    logger,
    controller,
    ...(store ? { store, keepEnvironmentsOnClose: true } : {}),
    ...(metricsPort === undefined ? {} : { metricsPort }),
  });
  io.stderr(
    `hookbox serve: listening on ${server.url} (${apiKeys.length > 0 ? `${apiKeys.length} API key(s)` : 'no API key: loopback only'}); console at ${server.url}/console\n`,
  );
  if (server.metricsUrl)
    io.stderr(`hookbox serve: metrics (no key, loopback only) at ${server.metricsUrl}/metrics\n`);
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
  io.stderr(
    `hookbox serve: ${signal}: finishing ${server.service.inFlight} interaction(s) in flight, then deleting environments\n`,
  );
  await server.close();
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
