// docs/credentials.md against a real `hookbox serve` app, real containers, the real egress proxy and
// local test servers (HTTPS with a throwaway CA, and plain HTTP) reached through the proxy's test
// name map (`egress.testing`, as network-helpers.ts does). Credentials are stored sealed, never shown
// by any GET nor logged, reach the wire and nowhere inside the sandbox; placeholders resolve only
// on the wire; tenants are kept apart; a missing or wrong key is a clear error.
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookbox, HookboxApiError } from '../../src/client/index.js';
import { Controller } from '../../src/controller/controller.js';
import type { Logger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { makeTestPki, type TestPki } from '../unit/network/test-ca.js';
import { huntSecret, inOwnMemory } from './secret-hunt.js';

const ALICE = 'credentials-alice-key-1';
const BOB = 'credentials-bob-key-002';
const KEY = 'credentials-test-key-of-more-than-32-characters';
const VALUE = 'cred_value_9f2c41d7e8b3';
const HEADER_ONLY = 'cred_header_only_55a1b0';
const NAMES = ['api.hookbox.test', 'other.hookbox.test'];

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
}

let pki: TestPki;
const received: Received[] = [];
const logLines: string[] = [];
const closers: (() => unknown)[] = [];
let httpsPort: number;
let httpPort: number;
let home: string;
let controller: Controller;
let server: RunningServer;
let alice: Hookbox;
let bob: Hookbox;

function upstream(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok": true}');
  });
}

async function listen(server: import('node:net').Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A logger at debug that keeps every line, so the test can say what was never logged. */
function capturingLogger(): Logger {
  return pino(
    { name: 'hookbox', level: 'debug' },
    { write: (line: string) => void logLines.push(line) },
  );
}

async function serverWith(
  options: { stateFile?: string; secretKey?: string; home?: string },
  keys: string[],
): Promise<{ server: RunningServer; controller: Controller }> {
  const made = await Controller.start({
    home: options.home ?? mkdtempSync(join(tmpdir(), 'hookbox-cred-')),
    logger: capturingLogger(),
    startEngine: false,
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
    ...(options.secretKey ? { secretKey: options.secretKey } : {}),
    egress: {
      caCerts: [pki.caCert],
      // Test configuration only: these names lead to the test servers on this machine.
      testing: { trustedUpstreams: Object.fromEntries(NAMES.map((name) => [name, '127.0.0.1'])) },
    },
  });
  const started = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: keys,
    logger: capturingLogger(),
    controller: made,
  });
  return { server: started, controller: made };
}

async function refusal(run: () => Promise<unknown>): Promise<HookboxApiError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(HookboxApiError);
    return error as HookboxApiError;
  }
  throw new Error('expected an error answer');
}

/** A scripted interaction in a new networked environment (docs/environments.md). */
function request(environment: Record<string, unknown>, code = 'true') {
  return {
    agent: 'scripted',
    input: [{ type: 'code_execution_call' as const, arguments: { code, language: 'bash' } }],
    environment: { type: 'remote' as const, ...environment },
  };
}

beforeAll(async () => {
  delete process.env.HOOKBOX_SECRET_KEY;
  pki = makeTestPki(NAMES);
  const https = createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, upstream);
  const http = createHttpServer(upstream);
  httpsPort = await listen(https);
  httpPort = await listen(http);
  closers.push(
    () => https.close(),
    () => http.close(),
  );
  home = mkdtempSync(join(tmpdir(), 'hookbox-cred-'));
  ({ server, controller } = await serverWith(
    { home, stateFile: join(home, 'state.db'), secretKey: KEY },
    [ALICE, BOB],
  ));
  alice = new Hookbox({ baseUrl: server.url, apiKey: ALICE });
  bob = new Hookbox({ baseUrl: server.url, apiKey: BOB });
});

afterAll(async () => {
  await server?.close();
  for (const close of closers) close();
});

describe('storing', () => {
  it('answers with id, name, time and header names; no GET ever returns the value', async () => {
    const made = await alice.credentials.create({
      name: 'api token',
      value: VALUE,
      headers: { Authorization: 'Bearer {{value}}', 'X-Static': HEADER_ONLY },
    });
    expect(made).toMatchObject({
      object: 'credential',
      name: 'api token',
      header_names: ['Authorization', 'X-Static'],
      has_value: true,
    });
    const raw = await fetch(`${server.url}/v1beta/credentials/${made.id}`, {
      headers: { 'x-goog-api-key': ALICE },
    });
    const list = await fetch(`${server.url}/v1beta/credentials`, {
      headers: { 'x-goog-api-key': ALICE },
    });
    expect(raw.status).toBe(200);
    for (const text of [JSON.stringify(made), await raw.text(), await list.text()]) {
      expect(text).toContain(made.id);
      expect(text).not.toContain(VALUE);
      expect(text).not.toContain(HEADER_ONLY);
    }
    // The state file (and its write-ahead log) holds the name in clear, the secrets sealed.
    const state = join(home, 'state.db');
    const bytes = [state, `${state}-wal`]
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('');
    expect(bytes).toContain(made.id);
    expect(bytes).not.toContain(VALUE);
    expect(bytes).not.toContain(HEADER_ONLY);
  });

  it('bad input is a 400 naming the field and the rule', async () => {
    const error = await refusal(() =>
      alice.credentials.create({ name: 'x', headers: { Host: 'evil' } }),
    );
    expect(error.status).toBe(400);
    expect(error.details.field).toBe('body.headers.Host');
    expect(error.message).toMatch(/proxy owns it/);
  });

  it('is refused without HOOKBOX_SECRET_KEY, naming the variable', async () => {
    const keyless = await serverWith({}, [ALICE]);
    try {
      const client = new Hookbox({ baseUrl: keyless.server.url, apiKey: ALICE });
      const error = await refusal(() => client.credentials.create({ name: 'a', value: VALUE }));
      expect(error.status).toBe(503);
      expect(error.code).toBe('credentials_unavailable');
      expect(error.message).toMatch(/HOOKBOX_SECRET_KEY is not set/);
      expect(await client.credentials.list()).toEqual([]);
    } finally {
      await keyless.server.close();
    }
  });
});

describe('tenants', () => {
  it('another tenant gets 404 for it, does not list it, and cannot reference it', async () => {
    const made = await alice.credentials.create({ name: 'mine', value: VALUE });
    for (const run of [() => bob.credentials.get(made.id), () => bob.credentials.delete(made.id)]) {
      const error = await refusal(run);
      expect(error.status).toBe(404);
      expect(error.message).toBe(`id: no credential ${JSON.stringify(made.id)}`);
    }
    expect((await bob.credentials.list()).map((credential) => credential.id)).not.toContain(
      made.id,
    );
    const error = await refusal(() =>
      bob.interactions.create(
        request({
          network: { allowlist: [{ domain: 'api.hookbox.test', credential: made.id }] },
        }),
      ),
    );
    expect(error.status).toBe(400);
    expect(error.details.field).toBe('network.allowlist[0].credential');
    // Still there for its owner.
    expect((await alice.credentials.get(made.id)).id).toBe(made.id);
  });
});

describe('referencing', () => {
  it('an unknown credential id is a 400 naming the field; nothing is made', async () => {
    const before = controller.listEnvironments().length;
    const error = await refusal(() =>
      alice.interactions.create(
        request({
          network: {
            allowlist: [{ domain: 'api.hookbox.test', credential: 'cred_aaaaaaaaaaaaaaaaaaaa' }],
          },
        }),
      ),
    );
    expect(error.status).toBe(400);
    expect(error.details.field).toBe('network.allowlist[0].credential');
    expect(error.message).toMatch(/no credential "cred_aaaaaaaaaaaaaaaaaaaa"/);
    expect(controller.listEnvironments()).toHaveLength(before);
  });

  it('a placeholder no allowlist entry binds is a 400 naming the variable', async () => {
    const made = await alice.credentials.create({ name: 'unbound', value: VALUE });
    const error = await refusal(() =>
      alice.interactions.create(
        request({
          env: { API_KEY: { credential: made.id } },
          network: { allowlist: [{ domain: 'api.hookbox.test' }] },
        }),
      ),
    );
    expect(error.status).toBe(400);
    expect(error.details.field).toBe('env.API_KEY.credential');
  });

  it('a deleted credential can no longer be referenced', async () => {
    const made = await alice.credentials.create({ name: 'gone', value: VALUE });
    await alice.credentials.delete(made.id);
    expect((await refusal(() => alice.credentials.get(made.id))).status).toBe(404);
    const error = await refusal(() =>
      alice.interactions.create(
        request({ network: { allowlist: [{ domain: 'api.hookbox.test', credential: made.id }] } }),
      ),
    );
    expect(error.details.field).toBe('network.allowlist[0].credential');
  });
});

describe('replacing the network of a live environment', () => {
  it('opens a credential referenced by PATCH …/network, and names an unknown one', async () => {
    const made = await alice.credentials.create({
      name: 'patched',
      headers: { 'X-Patched': HEADER_ONLY },
    });
    const tenant = (await alice.credentials.get(made.id)).tenant;
    const environment = await controller.createEnvironment({
      network: { allowlist: [{ domain: 'api.hookbox.test' }] },
      tenant,
    });
    try {
      const error = await refusal(() =>
        alice.environments.network.set(environment.id, {
          allowlist: [{ domain: 'api.hookbox.test', credential: 'cred_bbbbbbbbbbbbbbbbbbbb' }],
        }),
      );
      expect(error.status).toBe(400);
      expect(error.details.field).toBe('body.allowlist[0].credential');
      const answer = await alice.environments.network.set(environment.id, {
        allowlist: [{ domain: 'api.hookbox.test', credential: made.id }],
      });
      expect(JSON.stringify(answer)).not.toContain(HEADER_ONLY);
      // The proxy now adds the credential's headers to hook requests to that domain.
      expect(environment.egress?.allowlist.match('api.hookbox.test')).toMatchObject({
        credential: made.id,
        transform: { 'X-Patched': HEADER_ONLY },
      });
    } finally {
      await environment.delete();
    }
  });
});

describe('on the wire, and nowhere in the sandbox', () => {
  it('hook requests get its headers; placeholders resolve only on the wire to their domain', async () => {
    received.length = 0;
    const made = await alice.credentials.create({
      name: 'upstream',
      value: VALUE,
      headers: { Authorization: 'Bearer {{value}}', 'X-Static': HEADER_ONLY },
    });
    const hooks = {
      audit: {
        post_tool_execution: [
          {
            hooks: [
              { type: 'http', url: `https://api.hookbox.test:${httpsPort}/events`, timeout: 10 },
            ],
          },
        ],
      },
    };
    const code = [
      'echo "PRINTENV=$(printenv API_KEY)"',
      'printenv API_KEY > token.txt',
      `curl -s -o /dev/null -H "Authorization: Bearer $API_KEY" http://api.hookbox.test:${httpPort}/bound`,
      `curl -s -o /dev/null -H "X-Key: $API_KEY" http://other.hookbox.test:${httpPort}/elsewhere`,
      'echo done',
    ].join('\n');
    const interaction = await alice.interactions.create(
      request(
        {
          sources: [
            { type: 'inline', target: '.agents/hooks.json', content: JSON.stringify(hooks) },
          ],
          env: { API_KEY: { credential: made.id } },
          network: {
            allowlist: [
              { domain: 'api.hookbox.test', credential: made.id },
              { domain: 'other.hookbox.test' },
            ],
          },
        },
        code,
      ),
    );
    const text = JSON.stringify(interaction);
    expect(text).toContain('done');
    // Tool code sees only the token.
    const token = /PRINTENV=(hookbox-credential-[0-9a-f]{32})/.exec(text)?.[1];
    expect(token).toBeDefined();
    expect(text).not.toContain(VALUE);

    // The upstream sees the value: in the bound domain's plain-HTTP request, and the credential's
    // headers on the hook's request (over TLS). Another allowlisted domain gets only the token.
    const at = (path: string) => received.find((entry) => entry.path === path);
    expect(at('/bound')?.headers.authorization).toBe(`Bearer ${VALUE}`);
    expect(at('/elsewhere')?.headers['x-key']).toBe(token);
    expect(at('/events')?.headers.authorization).toBe(`Bearer ${VALUE}`);
    expect(at('/events')?.headers['x-static']).toBe(HEADER_ONLY);

    const environment = controller.getEnvironment(interaction.environment_id);
    const records = environment.records();
    expect(JSON.stringify(records)).not.toContain(VALUE);
    expect(records.filter((entry) => entry.kind === 'egress')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ form: 'http', placeholder_headers: ['authorization'] }),
        expect.objectContaining({
          form: 'hook',
          injected_headers: ['Authorization', 'X-Static'],
        }),
      ]),
    );

    // The hunt: every file as each user, every process's environ, argv and memory, the containers'
    // configuration. The value and the header-only secret are nowhere.
    for (const secret of [VALUE, HEADER_ONLY]) {
      const found = await huntSecret(environment.sandbox.containerId, secret, environment.id);
      expect(found.places).toEqual([]);
      expect(found.memory).toEqual([]);
      expect(found.scanned).toBeGreaterThanOrEqual(2);
      expect(found.inConfiguration).toBe(false);
    }
    // (The hunt finds what is there: the token tool code wrote, the value in the controller.)
    const tokenHunt = await huntSecret(environment.sandbox.containerId, token!, environment.id);
    expect(tokenHunt.places).toContain('/workspace/token.txt');
    expect(await inOwnMemory(VALUE)).toBe(true);

    // Never logged, at any level.
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).toContain(made.id);
    expect(logLines.join('\n')).not.toContain(VALUE);
    expect(logLines.join('\n')).not.toContain(HEADER_ONLY);
    await alice.environments.delete(environment.id);
  });
});

describe('the key', () => {
  it('a server restarted with another key cannot decrypt it, and says so', async () => {
    const made = await alice.credentials.create({ name: 'before restart', value: VALUE });
    await server.close();
    const restarted = await serverWith(
      { home, stateFile: join(home, 'state.db'), secretKey: `another-${KEY}` },
      [ALICE],
    );
    server = restarted.server;
    const client = new Hookbox({ baseUrl: server.url, apiKey: ALICE });
    // What it is survives the restart; its value opens with the right key only.
    expect((await client.credentials.get(made.id)).name).toBe('before restart');
    const error = await refusal(() =>
      client.interactions.create(
        request({ network: { allowlist: [{ domain: 'api.hookbox.test', credential: made.id }] } }),
      ),
    );
    expect(error.status).toBe(503);
    expect(error.code).toBe('credentials_unavailable');
    expect(error.message).toMatch(
      new RegExp(`credential ${made.id} cannot be decrypted with this HOOKBOX_SECRET_KEY`),
    );
    expect(restarted.controller.listEnvironments()).toEqual([]);
  });
});
