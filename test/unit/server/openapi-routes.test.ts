// The OpenAPI document and the server's routes cannot drift apart (docs/contract.md §9): every API
// route the server registers is in the document, with its methods, and the document names no route
// the server lacks. The console's pages and `/metrics` are operator views, not the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InteractionService } from '../../../src/interactions/service.js';
import { createLogger } from '../../../src/record/logger.js';
import { buildApp } from '../../../src/server/app.js';
import { openApiDocument } from '../../../src/server/openapi.js';
import { FakeController, registryWith } from '../interactions/fakes.js';

const service = new InteractionService({
  controller: new FakeController(),
  drivers: registryWith(),
});
const app = buildApp({
  // The one cast left: the app wants the real Controller, whose console, metrics, credentials and
  // files routes read more of it than the service does (docs/testing.md, "Fakes the compiler checks").
  service: service as unknown as InteractionService,
  logger: createLogger({ level: 'silent' }),
  apiKeys: ['unit-test-key-1'],
  version: 'test',
});
/** `METHOD /path/{param}` of every API route the server registers. */
const served = new Set<string>();
app.addHook('onRoute', (route) => {
  if (route.url.startsWith('/console') || route.url === '/metrics') return;
  // One pattern per upload version: the document names /upload/v1beta/…, /v1 is its alias.
  if (route.url.startsWith('/upload/v1/')) return;
  const path = route.url.replace(/:([a-z_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
  for (const method of [route.method].flat())
    if (method !== 'HEAD') served.add(`${method} ${path}`);
});

beforeAll(async () => {
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await service.close();
});

describe('the OpenAPI document and the routes', () => {
  it('name the same operations', () => {
    const document = openApiDocument({ version: 'test', bodyLimit: 1024 }) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    // PUT starts an upload as POST does (the JS SDK sends PUT): one documented operation.
    served.delete('PUT /upload/v1beta/environments/{id}/files/{path}');
    expect(served.size).toBeGreaterThan(20);
    expect([...served].filter((operation) => !documented.has(operation)).sort()).toEqual([]);
    expect([...documented].filter((operation) => !served.has(operation)).sort()).toEqual([]);
  });
});
