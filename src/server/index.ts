import type { FastifyInstance } from 'fastify';
import { Controller } from '../controller/controller.js';
import type { DriverRegistry } from '../interactions/drivers/index.js';
import { InteractionService } from '../interactions/service.js';
import type { InteractionStore } from '../interactions/store.js';
import { packageVersion } from '../paths.js';
import { createLogger, type Logger } from '../record/logger.js';
import { QuotaBook, defaultMaxEnvironments } from '../tenants/quotas.js';
import type { TenantKey } from '../tenants/keys.js';
import { WorkspaceDisk } from '../tenants/workspace-disk.js';
import { buildApp, DEFAULT_BODY_LIMIT } from './app.js';
import { checkListenSafety } from './listen-safety.js';
import { HookboxMetrics } from './metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { diskRootOf } from '../sandbox/workspace-disk.js';
import {
  CLIENT_LIMIT_DEFAULTS,
  defaultMaxConnections,
  guardConnections,
  type ClientLimits,
} from './client-limits.js';

export { checkListenSafety } from './listen-safety.js';
export { loadTenantKeys, type TenantKey } from '../tenants/keys.js';
export { type ClientLimits } from './client-limits.js';
export { HookboxMetrics } from './metrics.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;

export interface StartServerOptions {
  /** @default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port. @default 8080 */
  port?: number;
  /** Plain keys, each its own tenant. No keys at all: only a loopback host is allowed. */
  apiKeys?: readonly string[];
  /** Keys with names, roles and quotas (`--api-keys-file`, structured form; docs/tenants.md). */
  tenantKeys?: readonly TenantKey[];
  /** `--allowed-hosts`: `Host` names answered besides loopback ones. @default [] */
  allowedHosts?: readonly string[];
  /**
   * `--max-environments`: live environments the server holds at most, across tenants.
   * @default one per 256 MiB of the machine's memory, from 2 to 1000
   */
  maxEnvironments?: number;
  /** Connection caps and timeouts of slow clients (docs/tenants.md, "Client limits"). */
  limits?: ClientLimits;
  /** A streaming client may leave this much unread before its stream is dropped. @default 8 MiB */
  streamBufferBytes?: number;
  /** @default a pino logger on stderr at HOOKBOX_LOG_LEVEL, else info */
  logger?: Logger;
  /** @default Controller.start() (an engine must answer; the sandbox image is built if missing) */
  controller?: Controller;
  bodyLimit?: number;
  environmentTtlMs?: number;
  sweepIntervalMs?: number;
  drivers?: DriverRegistry;
  store?: InteractionStore;
  /**
   * On close, leave the environments running (the controller's state file lists them, and the next
   * `hookbox serve` with that file re-attaches to them) instead of deleting them.
   * @default false
   */
  keepEnvironmentsOnClose?: boolean;
  /**
   * Also serve `GET /metrics` with no key on 127.0.0.1 at this port (0 picks one), for a Prometheus
   * on the same machine. `/metrics` on the main port (behind the keys) is there either way.
   * @default none
   */
  metricsPort?: number;
}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  port: number;
  app: FastifyInstance;
  service: InteractionService;
  metrics: HookboxMetrics;
  /** `http://127.0.0.1:port` of the keyless metrics listener, when `metricsPort` was given. */
  metricsUrl?: string;
  /**
   * Stops accepting requests, lets those in flight (and their interactions) finish, then deletes
   * every environment. What SIGTERM does in `hookbox serve`.
   */
  close(): Promise<void>;
}

export { packageVersion };

/** Starts `hookbox serve` in this process. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const apiKeys = options.apiKeys ?? [];
  checkListenSafety(host, [...apiKeys, ...(options.tenantKeys ?? [])]);
  const maxEnvironments = options.maxEnvironments ?? defaultMaxEnvironments();
  const logger = options.logger ?? createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'info' });
  const controller = options.controller ?? (await Controller.start({ logger, startEngine: false }));
  const service = new InteractionService({
    controller,
    logger,
    ...(options.store ? { store: options.store } : {}),
    ...(options.drivers ? { drivers: options.drivers } : {}),
    ...(options.environmentTtlMs === undefined
      ? {}
      : { environmentTtlMs: options.environmentTtlMs }),
    ...(options.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: options.sweepIntervalMs }),
    closeController: !options.keepEnvironmentsOnClose,
    quotas: new QuotaBook(maxEnvironments),
    ...(controller.client.volumeSizes
      ? {
          workspaceDisk: new WorkspaceDisk(
            controller.client as typeof controller.client & {
              volumeSizes: () => Promise<Map<string, number>>;
            },
            logger,
            undefined,
            diskRootOf(controller.home),
          ),
        }
      : {}),
  });
  const metrics = new HookboxMetrics(controller, () => service.inFlight);
  const app = buildApp({
    service,
    logger,
    apiKeys,
    ...(options.tenantKeys ? { tenantKeys: options.tenantKeys } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.streamBufferBytes ? { streamBufferBytes: options.streamBufferBytes } : {}),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    version: packageVersion(),
    metrics,
  });
  let metricsServer: MetricsServer | undefined;
  guardConnections(
    app.server,
    {
      maxConnections: options.limits?.maxConnections ?? defaultMaxConnections(maxEnvironments),
      maxConnectionsPerAddress:
        options.limits?.maxConnectionsPerAddress ?? CLIENT_LIMIT_DEFAULTS.maxConnectionsPerAddress,
    },
    (address, why) => logger.debug({ address, why }, 'connection refused'),
  );
  try {
    await app.listen({ host, port: options.port ?? DEFAULT_PORT });
    if (options.metricsPort !== undefined)
      metricsServer = await startMetricsServer(metrics, options.metricsPort);
  } catch (error) {
    await app.close().catch(() => {});
    metrics.close();
    await service.close();
    throw error;
  }
  const address = app.server.address();
  const port =
    typeof address === 'object' && address ? address.port : (options.port ?? DEFAULT_PORT);
  const shown = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    port,
    app,
    service,
    metrics,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    close: () =>
      (closing ??= (async () => {
        // Keep-alive connections whose request ended while closing would hold the close for the
        // whole keep-alive timeout (72 s in Fastify): close them as soon as they go idle.
        const reaper = setInterval(() => app.server.closeIdleConnections(), 50);
        try {
          await Promise.all([app.close(), metricsServer?.close()]);
        } finally {
          metrics.close();
          clearInterval(reaper);
          await service.close();
          if (options.keepEnvironmentsOnClose) await controller.detach();
        }
      })()),
  };
}
