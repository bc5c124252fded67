// The Gemini SDKs' credentials resource, driven unchanged (base URL and key only) against a real
// `hookbox serve`, a real egress proxy and local test servers reached through the proxy's test
// name map (as credentials.test.ts does): the three types with client-chosen ids, create, get,
// list, update (update_mask), delete; no secret in any answer; tenants apart; a bearer token and
// an oauth2 access token reach the wire, never tool code; the proxy trades the oauth2 refresh
// token again when the access token expires (docs/credentials.md, "The SDKs' credential types").
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import { fetchJson } from './api-helpers.js';
import { jsClient, runPython } from './sdk-helpers.js';

const ALICE = 'sdk-cred-alice-key';
const BOB = 'sdk-cred-bob-key-2';
const SECRET_KEY = 'sdk-credentials-test-key-of-more-than-32-characters';
const SECRETS = {
  value: 'envvar_secret_7d1c',
  token: 'bearer_secret_92ab',
  clientSecret: 'client_secret_40ff',
  refresh: 'refresh_secret_1e3d',
};
const NAMES = ['api.hookbox.test'];

let server: RunningServer;
let httpPort: number;
let tokenPort: number;
const received: { path: string; headers: IncomingMessage['headers'] }[] = [];
const trades: URLSearchParams[] = [];
/** What the token endpoint answers next: a token's lifetime, or garbage. */
let tokenAnswer: 'ok' | 'garbage' = 'ok';
const closers: Server[] = [];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const made = createServer(handler);
  made.listen(0, '127.0.0.1');
  await once(made, 'listening');
  closers.push(made);
  return (made.address() as AddressInfo).port;
}

beforeAll(async () => {
  httpPort = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers });
      res.end('{"ok": true}');
    });
  });
  tokenPort = await listen((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk));
    req.on('end', () => {
      trades.push(new URLSearchParams(text));
      if (tokenAnswer === 'garbage') return void res.end('<html>not a token</html>');
      res.setHeader('content-type', 'application/json');
      // 8 s: traded again 5 s before expiry, so a token is used for at most 3 s.
      res.end(JSON.stringify({ access_token: `access-${trades.length}`, expires_in: 8 }));
    });
  });
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-sdk-cred-')),
    logger,
    startEngine: false,
    secretKey: SECRET_KEY,
    egress: {
      // Test configuration only: this name leads to the test server on this machine.
      testing: { trustedUpstreams: Object.fromEntries(NAMES.map((name) => [name, '127.0.0.1'])) },
    },
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [ALICE, BOB],
    logger,
    controller,
  });
});

afterAll(async () => {
  await server?.close();
  for (const closer of closers) closer.close();
});

const call = (method: string, path: string, body?: object, key = ALICE) =>
  fetchJson(server, method, path, body, { 'x-goog-api-key': key });

function expectNoSecret(answer: unknown): void {
  const text = JSON.stringify(answer);
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('credentials through the JavaScript SDK', () => {
  it('the three types: create, get, list, update with update_mask, delete; no secret shown; tenants apart', async () => {
    const ai = jsClient(server, ALICE);
    const env = await ai.credentials.create({
      id: 'search-key',
      type: 'environment_variable',
      value: SECRETS.value,
      injection_location: 'header',
      trusted_domains: ['api.hookbox.test'],
    });
    const bearer = await ai.credentials.create({
      id: 'github',
      type: 'bearer_token',
      token: SECRETS.token,
    });
    const oauth = await ai.credentials.create({
      id: 'calendar',
      type: 'oauth2',
      client_id: 'hookbox-test-client',
      client_secret: SECRETS.clientSecret,
      refresh_token: SECRETS.refresh,
      token_url: `http://127.0.0.1:${tokenPort}/token`,
      scopes: ['calendar.read'],
    });
    expect(env).toMatchObject({ id: 'search-key', type: 'environment_variable', status: 'active' });
    expect(bearer).toMatchObject({ id: 'github', type: 'bearer_token', status: 'active' });
    expect(oauth).toMatchObject({
      id: 'calendar',
      type: 'oauth2',
      client_id: 'hookbox-test-client',
    });
    expect(Date.now() - Date.parse(bearer.create_time!)).toBeLessThan(60_000);

    const listed = await ai.credentials.list();
    expect(listed.credentials?.map((credential) => credential.id).sort()).toEqual([
      'calendar',
      'github',
      'search-key',
    ]);
    const fetched = await ai.credentials.get('github');
    expect(fetched).toMatchObject({ id: 'github', type: 'bearer_token', prefix: 'Bearer' });

    const updated = await ai.credentials.update('github', {
      type: 'bearer_token',
      prefix: 'Token',
      update_mask: 'prefix',
    });
    expect(updated).toMatchObject({ id: 'github', prefix: 'Token', header_name: 'Authorization' });
    expect(Date.parse(updated.update_time!)).toBeGreaterThanOrEqual(
      Date.parse(bearer.update_time!),
    );
    expectNoSecret([env, bearer, oauth, listed, fetched, updated]);

    // Another tenant: 404 for each, an empty list, and the same id is free for it.
    const stranger = jsClient(server, BOB);
    const refused = await stranger.credentials.get('github').then(
      () => undefined,
      (error: { status?: number }) => error,
    );
    expect(refused?.status).toBe(404);
    expect((await stranger.credentials.list()).credentials ?? []).toEqual([]);
    const theirs = await stranger.credentials.create({
      id: 'github',
      type: 'bearer_token',
      token: 'bobs-own-token',
    });
    expect(theirs.id).toBe('github');
    await stranger.credentials.delete('github');

    await ai.credentials.delete('search-key');
    expect((await call('GET', '/v1beta/credentials/search-key')).status).toBe(404);
    expect((await call('GET', '/v1beta/credentials/github')).json.prefix).toBe('Token');
  });
});

describe('credentials through the Python SDK', () => {
  it('create, get, list, update, delete', async () => {
    const answer = await runPython(
      server,
      ALICE,
      `
made = client.credentials.create(id="py-token", type="bearer_token", token=os.environ["TOKEN"], header_name="X-Api-Key", prefix="")
got = client.credentials.get(id="py-token")
ids = [c.id for c in client.credentials.list().credentials]
updated = client.credentials.update(id="py-token", type="bearer_token", token="rotated-token-value", update_mask="token")
client.credentials.delete(id="py-token")
print(json.dumps({"made": made.type, "got": got.id, "ids": ids, "updated": updated.id, "left": [c.id for c in (client.credentials.list().credentials or [])]}))
`,
      { TOKEN: SECRETS.token },
    );
    expect(answer).toMatchObject({ made: 'bearer_token', got: 'py-token', updated: 'py-token' });
    expect(answer.ids).toContain('py-token');
    expect(answer.left).not.toContain('py-token');
  });
});

describe('on the wire', () => {
  it('a bearer token and an oauth2 access token reach their domain; tool code sees placeholders; the access token is traded again on expiry', async () => {
    const ai = jsClient(server, ALICE);
    await ai.credentials.create({ id: 'wire-token', type: 'bearer_token', token: SECRETS.token });
    await ai.credentials.create({
      id: 'wire-oauth',
      type: 'oauth2',
      client_id: 'hookbox-test-client',
      client_secret: SECRETS.clientSecret,
      refresh_token: SECRETS.refresh,
      token_url: `http://127.0.0.1:${tokenPort}/token`,
      scopes: ['a', 'b'],
    });
    trades.length = 0;
    received.length = 0;
    const made = await call('POST', '/v1beta/environments', {
      env: { BEARER: { credential: 'wire-token' } },
      network: { allowlist: [{ domain: 'api.hookbox.test', credential: 'wire-token' }] },
    });
    expect(made.status, made.text).toBe(200);
    const code = (path: string) =>
      `echo "SEEN=$BEARER"; curl -s -o /dev/null -H "Authorization: Bearer $BEARER" http://api.hookbox.test:${httpPort}${path}`;
    const first = await call('POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [
        { type: 'code_execution_call', arguments: { code: code('/bearer'), language: 'bash' } },
      ],
      environment: made.json.id,
    });
    expect(first.status, first.text).toBe(200);
    expect(first.text).toMatch(/SEEN=hookbox-credential-[0-9a-f]{32}/);
    expectNoSecret(first.json);
    expect(received.find((entry) => entry.path === '/bearer')?.headers.authorization).toBe(
      `Bearer ${SECRETS.token}`,
    );

    const oauthEnv = await call('POST', '/v1beta/environments', {
      env: { OAUTH: { credential: 'wire-oauth' } },
      network: {
        allowlist: [
          { domain: 'api.hookbox.test', credential: 'wire-oauth' },
          { domain: '127.0.0.1' },
        ],
      },
    });
    expect(oauthEnv.status, oauthEnv.text).toBe(200);
    expect(trades).toHaveLength(1);
    expect(Object.fromEntries(trades[0]!)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: SECRETS.refresh,
      client_id: 'hookbox-test-client',
      client_secret: SECRETS.clientSecret,
      scope: 'a b',
    });
    const oauthCall = (path: string) =>
      call('POST', '/v1beta/interactions', {
        agent: 'scripted',
        input: [
          {
            type: 'code_execution_call',
            arguments: {
              code: `echo "SEEN=$OAUTH"; curl -s -o /dev/null -H "Authorization: Bearer $OAUTH" http://api.hookbox.test:${httpPort}${path}`,
              language: 'bash',
            },
          },
        ],
        environment: oauthEnv.json.id,
      });
    // The request carries the latest token traded (however slow the machine, a token is used
    // for at most 3 s); 3.5 s later that one is due, so the proxy must trade again.
    const o1 = await oauthCall('/oauth-1');
    expect(o1.status, o1.text).toBe(200);
    const tradedAtFirst = trades.length;
    expect(received.find((entry) => entry.path === '/oauth-1')?.headers.authorization).toBe(
      `Bearer access-${tradedAtFirst}`,
    );
    await new Promise((done) => setTimeout(done, 3500));
    const o2 = await oauthCall('/oauth-2');
    expect(trades.length).toBeGreaterThan(tradedAtFirst);
    expect(received.find((entry) => entry.path === '/oauth-2')?.headers.authorization).toBe(
      `Bearer access-${trades.length}`,
    );
    for (const trade of trades) expect(trade.get('refresh_token')).toBe(SECRETS.refresh);
    for (const answer of [o1, o2]) {
      expect(answer.text).toMatch(/SEEN=hookbox-credential-[0-9a-f]{32}/);
      expect(answer.text).not.toMatch(/access-\d/);
      expectNoSecret(answer.json);
    }
    for (const id of [made.json.id, oauthEnv.json.id])
      await call('DELETE', `/v1beta/environments/${id}`);
  });

  it('a token endpoint that answers garbage, or is not allowlisted, is a 400 naming the entry; nothing is made', async () => {
    const before = (await call('GET', '/v1beta/environments')).json.environments.length;
    tokenAnswer = 'garbage';
    try {
      const garbage = await call('POST', '/v1beta/environments', {
        network: {
          allowlist: [
            { domain: 'api.hookbox.test', credential: 'calendar' },
            { domain: '127.0.0.1' },
          ],
        },
      });
      expect(garbage.status, garbage.text).toBe(400);
      expect(apiErrorOf(garbage.json)).toMatchObject({
        field: 'network.allowlist[0].credential',
        message: expect.stringMatching(/not JSON/),
      });
    } finally {
      tokenAnswer = 'ok';
    }
    const unlisted = await call('POST', '/v1beta/environments', {
      network: { allowlist: [{ domain: 'api.hookbox.test', credential: 'calendar' }] },
    });
    expect(unlisted.status, unlisted.text).toBe(400);
    expect(apiErrorOf(unlisted.json).message).toMatch(
      /token_url host "127.0.0.1" is not in the allowlist/,
    );
    expect((await call('GET', '/v1beta/environments')).json.environments.length).toBe(before);
  });
});

describe('bad input', () => {
  it.each([
    [{ id: 'x1', type: 'api_key', value: 'v' }, 'body.type', /one of/],
    [{ id: 'Bad_Id', type: 'bearer_token', token: 't' }, 'body.id', /lower-case/],
    [{ id: 'x2', type: 'bearer_token' }, 'body.token', /./],
    [
      { id: 'x3', type: 'environment_variable', value: 'v', injection_location: 'cookie' },
      'body.injection_location',
      /./,
    ],
    [
      {
        id: 'x4',
        type: 'oauth2',
        client_id: 'c',
        client_secret: 's',
        refresh_token: 'r',
        token_url: 'ftp://x',
      },
      'body.token_url',
      /http/,
    ],
    [
      { id: 'x5', type: 'bearer_token', token: 't', header_name: 'Host' },
      'body.header_name',
      /header/,
    ],
  ])('%j is a 400 naming %s', async (body, field, message) => {
    const answer = await call('POST', '/v1beta/credentials', body);
    expect(answer.status, answer.text).toBe(400);
    expect(apiErrorOf(answer.json).field).toBe(field);
    expect(apiErrorOf(answer.json).message).toMatch(message);
  });

  it('a taken id is a 409; an update of another type or an unknown mask field is a 400', async () => {
    await call('POST', '/v1beta/credentials', { id: 'twice', type: 'bearer_token', token: 't' });
    const again = await call('POST', '/v1beta/credentials', {
      id: 'twice',
      type: 'bearer_token',
      token: 't',
    });
    expect(again.status).toBe(409);
    const retype = await call('PATCH', '/v1beta/credentials/twice', { type: 'oauth2' });
    expect(apiErrorOf(retype.json).field).toBe('body.type');
    const mask = await call('PATCH', '/v1beta/credentials/twice?update_mask=colour', {
      type: 'bearer_token',
    });
    expect(mask.status).toBe(400);
    expect(apiErrorOf(mask.json).field).toBe('update_mask');
    expect(
      (await call('PATCH', '/v1beta/credentials/nothere', { type: 'bearer_token' })).status,
    ).toBe(404);
  });
});
