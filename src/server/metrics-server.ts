import { createServer, type ServerResponse } from 'node:http';
import { SystemError, UserError, httpStatusOf, type HookboxError } from '../errors/index.js';
import { errorBody } from './errors.js';
import type { HookboxMetrics } from './metrics.js';

/** Where `--metrics-port` listens: loopback only, since it has no key (docs/console.md, "Metrics"). */
export const METRICS_HOST = '127.0.0.1';

export interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Refusals and failures in the API's error envelope, as on the main port. */
function sendError(response: ServerResponse, error: HookboxError): void {
  response.writeHead(httpStatusOf(error), { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(errorBody(error)));
}

/** `GET /metrics` with no key, on 127.0.0.1 only; every other path is a 404. */
export async function startMetricsServer(
  metrics: HookboxMetrics,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      sendError(
        response,
        new UserError(
          'not_found',
          `path: only GET /metrics is served here, not ${request.method} ${path}`,
          {
            details: { field: 'path' },
          },
        ),
      );
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType });
        response.end(body);
      },
      (error: unknown) =>
        sendError(
          response,
          new SystemError('internal', `collecting metrics failed: ${(error as Error).message}`, {
            cause: error,
          }),
        ),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, METRICS_HOST, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${METRICS_HOST}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeIdleConnections();
        server.close(() => resolve());
      }),
  };
}
