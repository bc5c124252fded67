// What Controller.start readies before the controller exists: engine, image, state, pools, reaping.
import { hookboxHome } from '../paths.js';
import { defaultLogger, type Logger } from '../record/logger.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import { DockerContainerClient } from '../backends/docker/docker-container-client.js';
import { ensureEngine } from '../backends/docker/engine.js';
import { ensureImage } from '../sandbox/image.js';
import { PostgresStateStore } from '../state/postgres-state-store.js';
import { SqliteStateAdapter } from '../state/sqlite-state-adapter.js';
import type { ControllerStateStore } from '../state/store.js';
import { DEFAULT_TEMPLATE } from '../templates/template-image.js';
import { Templates } from '../templates/templates.js';
import type { ControllerOptions } from './controller-options.js';
import { reapEvery, reapLeftovers } from './controller-reaping.js';
import type { WarmPoolOptions } from './warm-pool.js';

export interface Prepared {
  client: ContainerClient;
  logger: Logger;
  home: string;
  image: string;
  state: ControllerStateStore | undefined;
  templates: Templates;
  /** The warm pools to make, by template name, with the image each template resolved to. */
  pools: Map<string, { image: string; options: WarmPoolOptions }>;
  /** Starts the periodic reaping (ControllerOptions.reapIntervalMs), when asked for. */
  reapPeriodically(): NodeJS.Timeout | undefined;
}

/**
 * Makes sure an engine answers and the sandbox image exists, opens the durable state, resolves the
 * pools' templates and reaps leftovers of controllers that are gone.
 */
export async function prepare(options: ControllerOptions): Promise<Prepared> {
  const logger = options.logger ?? defaultLogger();
  const client = options.client ?? new DockerContainerClient(logger);
  if (options.startEngine ?? true) await ensureEngine(client, { quiet: true });
  else await client.ping();
  const image =
    options.image ?? (await ensureImage(client, logger, { onProgress: options.onProgress }));
  const state: ControllerStateStore | undefined = options.stateUrl
    ? await PostgresStateStore.open(options.stateUrl)
    : options.stateFile
      ? new SqliteStateAdapter(options.stateFile)
      : undefined;
  const home = options.home ?? hookboxHome();
  const templates = new Templates(client, logger, image, options.onProgress);
  const pools = new Map<string, { image: string; options: WarmPoolOptions }>();
  for (const [template, poolOptions] of Object.entries({
    ...(options.pool ? { [DEFAULT_TEMPLATE]: options.pool } : {}),
    ...options.pools,
  }))
    pools.set(template, {
      image: await templates.resolve(template, `pool.${template}`),
      options: poolOptions,
    });
  const reap = () =>
    reapLeftovers({
      client,
      logger,
      home,
      state,
      socketDir: options.egress?.socketDir,
      auditRetention: options.auditRetention,
    });
  // Leftovers are a clean-up, never a reason not to start (docs/operations.md, Leftovers).
  if (options.reapOrphansOnStart ?? true)
    await reap().catch((error: unknown) =>
      logger.warn({ error: (error as Error).message }, 'reaping orphans at start failed'),
    );
  return {
    client,
    logger,
    home,
    image,
    state,
    templates,
    pools,
    reapPeriodically: () =>
      options.reapIntervalMs ? reapEvery(options.reapIntervalMs, reap, logger) : undefined,
  };
}
