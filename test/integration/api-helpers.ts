// A real `hookbox serve` app in this process (port 0), and a fetch that returns status and JSON.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';

export const API_KEY = 'api-helpers-test-key';

/** A real server on a loopback port with these plain keys (each its own tenant), its own home. */
export async function startTestServer(apiKeys: readonly string[]): Promise<RunningServer> {
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-api-')),
    logger,
    startEngine: false,
  });
  return startServer({ host: '127.0.0.1', port: 0, apiKeys: [...apiKeys], logger, controller });
}

/** One server per test file, closed at the end (its environments deleted). */
export function useServer(): () => RunningServer {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startTestServer([API_KEY]);
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => server!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = { status: number; json: any; text: string; type: string | null };

export async function fetchJson(
  server: RunningServer,
  method: string,
  path: string,
  body?: string | object,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      'x-goog-api-key': API_KEY,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, type: response.headers.get('content-type') };
}

/** A scripted interaction request running the given calls in a new environment. */
export function scriptedRequest(
  calls: { type: 'code_execution_call' | 'tool_call'; [key: string]: unknown }[],
  sources: { type: 'inline'; target: string; content: string; encoding?: string }[] = [],
) {
  return {
    agent: 'scripted',
    input: calls,
    environment: { type: 'remote', sources },
  };
}
