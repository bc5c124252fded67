import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Controller } from '../environments/controller.js';
import type { DriverRegistry } from '../interactions/drivers/index.js';
import { InteractionService } from '../interactions/service.js';
import type { InteractionStore } from '../interactions/store.js';
import { packageRoot } from '../paths.js';
import { createLogger, type Logger } from '../record/logger.js';
import { buildApp, DEFAULT_BODY_LIMIT } from './app.js';
import { checkListenSafety } from './auth.js';
import { HookboxMetrics } from './metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';

export { buildApp, DEFAULT_BODY_LIMIT } from './app.js';
export { ApiKeyChecker, checkListenSafety, isLoopbackHost, loadApiKeys } from './auth.js';
export { openApiDocument } from './openapi.js';
export { HookboxMetrics } from './metrics.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;

export interface StartServerOptions {
  /** @default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port. @default 8080 */
  port?: number;
  /** No keys: only a loopback host is allowed. */
  apiKeys?: readonly string[];
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

export function packageVersion(): string {
  return (
    JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
}

/** Starts `hookbox serve` in this process. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const apiKeys = options.apiKeys ?? [];
  checkListenSafety(host, apiKeys);
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
  });
  const metrics = new HookboxMetrics(controller, () => service.inFlight);
  const app = buildApp({
    service,
    logger,
    apiKeys,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    version: packageVersion(),
    metrics,
  });
  let metricsServer: MetricsServer | undefined;
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
