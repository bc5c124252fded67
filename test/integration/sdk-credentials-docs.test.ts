// docs/credentials.md, "The SDKs' credential types": its JavaScript SDK, Python SDK and curl
// examples, run as written against a real `hookbox serve` with a secret key (doc-snippets.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { runSnippet } from './doc-snippets.js';

const KEY = 'sdk-cred-docs-key';
let server: RunningServer;

beforeAll(async () => {
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-sdk-cred-docs-')),
    logger,
    startEngine: false,
    secretKey: 'sdk-credentials-docs-key-of-more-than-32-characters',
  });
  server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [KEY], logger, controller });
});
afterAll(async () => {
  await server?.close();
});

const stored = async () => (await server.service.controller.credentials.list()).length;

describe('docs/credentials.md examples', () => {
  it('the JavaScript SDK example', async () => {
    const out = await runSnippet(server, KEY, 'credentials.md', 'credentials-js');
    expect(out).toMatch(/^github bearer_token active$/m);
    expect(out).toMatch(/^prefix token$/m);
    expect(out).toMatch(/^ids github,search-key$/m);
    expect(out).not.toContain('ghp-example-token');
    expect(await stored()).toBe(0);
  });

  it('the Python SDK example', async () => {
    const out = await runSnippet(server, KEY, 'credentials.md', 'credentials-python');
    expect(out).toMatch(/^calendar oauth2 active$/m);
    expect(out).toMatch(/^ids \['calendar'\]$/m);
    expect(await stored()).toBe(0);
  });

  it('the curl example', async () => {
    const out = await runSnippet(server, KEY, 'credentials.md', 'credentials-curl');
    expect(out).toContain('{"id":"deploy","type":"bearer_token","header_name":"X-Deploy-Key"}');
    expect(out.trim().split('\n')).toEqual([
      '{"id":"deploy","type":"bearer_token","header_name":"X-Deploy-Key"}',
      '{"id":"deploy","status":"active","has_token":false}',
      'deploy',
      'deploy',
      '{}',
    ]);
    expect(out).not.toContain('example-token');
    expect(await stored()).toBe(0);
  });
});
