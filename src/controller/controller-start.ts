// What Controller.start readies before the controller exists: engine, image, state, pools, reaping.
import { hookboxHome } from '../paths.js';
import { defaultLogger, type Logger } from '../record/logger.js';
import { imagesOf, type Backend } from '../sandbox/backend.js';
import { DockerBackend } from '../backends/docker/docker-backend.js';
import { ensureEngine } from '../backends/docker/engine.js';
import { ensureImage } from '../sandbox/image.js';
import { SqlStateStore } from '../state/sql-state-store.js';
import type { ControllerStateStore } from '../state/store.js';
import { DEFAULT_TEMPLATE } from '../templates/template-image.js';
import { Templates } from '../templates/templates.js';
import type { ControllerOptions } from './controller-options.js';
import { reapEvery, reapLeftovers } from './controller-reaping.js';
import type { WarmPoolOptions } from './warm-pool.js';

export interface Prepared {
  backend: Backend;
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
  const backend = options.backend ?? new DockerBackend(logger);
  if (options.startEngine ?? true) await ensureEngine(backend.runtime, { quiet: true });
  else await backend.runtime.ping();
  const image =
    options.image ??
    (await ensureImage(imagesOf(backend, 'building the sandbox image', 'image'), logger, {
      onProgress: options.onProgress,
    }));
  const state: ControllerStateStore | undefined = options.stateUrl
    ? await SqlStateStore.openUrl(options.stateUrl)
    : options.stateFile
      ? await SqlStateStore.openFile(options.stateFile)
      : undefined;
  const home = options.home ?? hookboxHome();
  const templates = new Templates(backend, logger, image, options.onProgress);
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
      backend,
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
    backend,
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
