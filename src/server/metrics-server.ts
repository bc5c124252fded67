import { createServer } from 'node:http';
import type { HookboxMetrics } from './metrics.js';

/** Where `--metrics-port` listens: loopback only, since it has no key (docs/console.md, "Metrics"). */
export const METRICS_HOST = '127.0.0.1';

export interface MetricsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `GET /metrics` with no key, on 127.0.0.1 only; every other path is a 404. */
export async function startMetricsServer(
  metrics: HookboxMetrics,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('only GET /metrics is served here\n');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType });
        response.end(body);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`collecting metrics failed: ${(error as Error).message}\n`);
      },
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
