import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** A recorded HTTP answer of a model API: its status and its body exactly as sent on the wire. */
export interface Recording {
  status: number;
  /** Headers that matter to the driver (e.g. `retry-after`); content-type is always JSON. */
  headers?: Record<string, string>;
  body: unknown;
}

/** Reads `recordings/<name>` (a {@link Recording}). */
export function recording(name: string): Recording {
  const url = new URL(`./recordings/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Recording;
}

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** When it arrived (Date.now()). */
  at: number;
  /** The parsed JSON body (each driver's test says which shape it expects). */
  body: unknown;
}

/** One expected request and the recorded answer it gets. */
export interface Exchange {
  /** @default 'POST' */
  method?: string;
  path: string;
  /** Headers that must have these values; `null` means the header must be absent. */
  headers?: Record<string, string | null>;
  /** Assertions on the request (throw, e.g. with `expect`, to refuse it). */
  check?: (request: SeenRequest) => void;
  /** The answer; `'hang'` never answers (for timeouts and cancellation). */
  response: Recording | 'hang';
}

export interface Replay {
  baseUrl: string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** Resolves once `count` requests have arrived (what a test cancels or times out after). */
  received(count: number): Promise<void>;
}

/**
 * Starts servers that replay recorded answers, one scripted exchange per request, in order. After
 * each test the servers close and the test fails on any request that was not expected (wrong
 * method, path, header or body: such a request gets HTTP 599 and is reported) and on expected
 * requests that never came.
 */
export function replayServers(): (exchanges: Exchange[]) => Promise<Replay> {
  const open: (() => Promise<string[]>)[] = [];
  afterEach(async () => {
    const closers = open.splice(0);
    const problems = (await Promise.all(closers.map((close) => close()))).flat();
    if (problems.length > 0) throw new Error(`replay server:\n- ${problems.join('\n- ')}`);
  });
  return async (exchanges) => {
    const requests: SeenRequest[] = [];
    const problems: string[] = [];
    const waiting: { count: number; arrived: () => void }[] = [];
    const server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        const seen: SeenRequest = {
          method: incoming.method ?? '',
          path: incoming.url ?? '',
          headers: incoming.headers,
          at: Date.now(),
          body,
        };
        const index = requests.push(seen) - 1;
        for (const waiter of waiting.filter((w) => w.count <= requests.length)) waiter.arrived();
        const exchange = exchanges[index];
        const problem =
          exchange === undefined ? 'no more requests expected' : refusal(exchange, seen);
        if (problem !== undefined || exchange === undefined) {
          const message = `unexpected request #${index + 1} ${seen.method} ${seen.path}: ${problem}`;
          problems.push(message);
          outgoing.writeHead(599, { 'content-type': 'application/json' });
          outgoing.end(JSON.stringify({ error: { message: `replay server: ${message}` } }));
          return;
        }
        if (exchange.response === 'hang') return;
        outgoing.writeHead(exchange.response.status, {
          ...exchange.response.headers,
          'content-type': 'application/json',
        });
        outgoing.end(JSON.stringify(exchange.response.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    open.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      const missing = exchanges
        .slice(requests.length)
        .map(
          (exchange, offset) =>
            `expected request #${requests.length + offset + 1} ${exchange.path} never came`,
        );
      return [...problems, ...missing];
    });
    const received = (count: number) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise<void>((arrived) => waiting.push({ count, arrived }));
    return { baseUrl: `http://127.0.0.1:${port}`, requests, received };
  };
}

/** A loopback port that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function refusal(exchange: Exchange, seen: SeenRequest): string | undefined {
  const method = exchange.method ?? 'POST';
  if (seen.method !== method) return `method ${seen.method}, expected ${method}`;
  if (seen.path !== exchange.path) return `path ${seen.path}, expected ${exchange.path}`;
  if (seen.headers['content-type'] !== 'application/json')
    return `content-type ${String(seen.headers['content-type'])}, expected application/json`;
  for (const [name, value] of Object.entries(exchange.headers ?? {})) {
    const actual = seen.headers[name.toLowerCase()];
    if (value === null && actual !== undefined) return `header ${name} must be absent`;
    if (value !== null && actual !== value)
      return `header ${name} is ${JSON.stringify(actual)}, expected ${JSON.stringify(value)}`;
  }
  try {
    exchange.check?.(seen);
  } catch (error) {
    return `body refused: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}
