// The Gemini Python SDK's credentials, unchanged, against a real `hookbox serve`, a real egress
// proxy and a token endpoint and upstream on loopback (reached through the proxy's test name map):
// the three types created, read, listed, updated with update_mask and deleted, no secret in any
// answer; an environment made through the SDK referencing the oauth2 one gets the access token on
// the wire, traded again by the proxy when it expires, while tool code sees a placeholder; another
// key gets 404 (docs/credentials.md, "The SDKs' credential types").
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { fetchJson } from './api-helpers.js';
import { runPython } from './sdk-helpers.js';

const KEY = 'sdk-cred-py-key';
const OTHER = 'sdk-cred-py-other-key';
const SECRETS = {
  VALUE: 'py_envvar_secret_51aa',
  TOKEN: 'py_bearer_secret_77c2',
  CLIENT_SECRET: 'py_client_secret_9e10',
  REFRESH: 'py_refresh_secret_03bd',
};

let server: RunningServer;
let upstreamPort: number;
let tokenPort: number;
const received: { path: string; authorization?: string }[] = [];
let trades = 0;
const servers: Server[] = [];

async function listen(handler: (req: IncomingMessage, body: string) => string): Promise<number> {
  const made = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => res.end(handler(req, body)));
  });
  made.listen(0, '127.0.0.1');
  await once(made, 'listening');
  servers.push(made);
  return (made.address() as AddressInfo).port;
}

beforeAll(async () => {
  upstreamPort = await listen((req) => {
    received.push({ path: req.url ?? '', authorization: req.headers.authorization });
    return '{"ok": true}';
  });
  // 8 s tokens: traded again 5 s before expiry, so a token is used for at most 3 s.
  tokenPort = await listen(() =>
    JSON.stringify({ access_token: `py-access-${++trades}`, expires_in: 8 }),
  );
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-sdk-cred-py-')),
    logger,
    startEngine: false,
    secretKey: 'sdk-credentials-python-key-of-more-than-32-characters',
    // Test configuration only: this name leads to the upstream on this machine.
    egress: { testing: { trustedUpstreams: { 'api.hookbox.test': '127.0.0.1' } } },
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [KEY, OTHER],
    logger,
    controller,
  });
});
afterAll(async () => {
  await server?.close();
  for (const made of servers) made.close();
});

const SCRIPT = `
s = os.environ
made = [
    client.credentials.create(id="py-env", type="environment_variable", value=s["VALUE"], injection_location="header", trusted_domains=["api.hookbox.test"]),
    client.credentials.create(id="py-bearer", type="bearer_token", token=s["TOKEN"], header_name="X-Api-Key", prefix=""),
    client.credentials.create(id="py-oauth", type="oauth2", client_id="py-client", client_secret=s["CLIENT_SECRET"], refresh_token=s["REFRESH"], token_url=s["TOKEN_URL"], scopes=["read"]),
]
got = [client.credentials.get(id=c.id) for c in made]
listed = client.credentials.list(page_size=2)
second = client.credentials.list(page_size=2, page_token=listed.next_page_token)
updated = [
    client.credentials.update(id="py-env", type="environment_variable", trusted_domains=["api.hookbox.test", "other.test"], update_mask="trusted_domains"),
    client.credentials.update(id="py-bearer", type="bearer_token", prefix="Key", update_mask="prefix"),
    client.credentials.update(id="py-oauth", type="oauth2", scopes=["read", "write"], update_mask="scopes"),
]
env = client.environments.create(
    network={"allowlist": [{"domain": "api.hookbox.test", "credential": "py-oauth"}, {"domain": "127.0.0.1"}]},
    extra_body={"env": {"OAUTH": {"credential": "py-oauth"}}},
)
dump = lambda c: c.model_dump(mode="json", exclude_none=True)
print(json.dumps({
    "made": [dump(c) for c in made], "got": [dump(c) for c in got], "updated": [dump(c) for c in updated],
    "pages": [[c.id for c in listed.credentials], [c.id for c in second.credentials]],
    "environment": env.id,
}))
`;

const DELETE_ALL = `
ids = sorted(c.id for c in client.credentials.list().credentials)
for i in ids:
    client.credentials.delete(id=i)
print(json.dumps({"deleted": ids, "left": [c.id for c in (client.credentials.list().credentials or [])]}))
`;

const STRANGER = `
out = {}
for i in ["py-env", "py-bearer", "py-oauth"]:
    try:
        client.credentials.get(id=i)
        out[i] = None
    except Exception as error:
        out[i] = getattr(error, "status_code", None) or getattr(error, "code", None)
print(json.dumps(out))
`;

const call = (method: string, path: string, body?: object) =>
  fetchJson(server, method, path, body, { 'x-goog-api-key': KEY });

describe('credentials through the Python SDK', () => {
  it('the three types: create, get, list a page at a time, update with update_mask, an oauth2 token on the wire, delete', async () => {
    const answer = await runPython(server, KEY, SCRIPT, {
      ...SECRETS,
      TOKEN_URL: `http://127.0.0.1:${tokenPort}/token`,
    });
    const text = JSON.stringify(answer);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    expect(answer.made.map((c: { type: string }) => c.type)).toEqual([
      'environment_variable',
      'bearer_token',
      'oauth2',
    ]);
    expect(answer.got.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['py-env', 'active'],
      ['py-bearer', 'active'],
      ['py-oauth', 'active'],
    ]);
    expect(answer.pages).toEqual([['py-bearer', 'py-env'], ['py-oauth']]);
    expect(answer.updated[0].trusted_domains).toEqual(['api.hookbox.test', 'other.test']);
    expect(answer.updated[1]).toMatchObject({ header_name: 'X-Api-Key', prefix: 'Key' });
    expect(answer.updated[2]).toMatchObject({ client_id: 'py-client', scopes: ['read', 'write'] });
    expect(trades).toBe(1);

    // The environment the SDK made: tool code sees a placeholder, the upstream the access token,
    // and a token past its time is traded again by the proxy.
    const code = (path: string) =>
      `echo "SEEN=$OAUTH"; curl -s -o /dev/null -H "Authorization: Bearer $OAUTH" http://api.hookbox.test:${upstreamPort}${path}`;
    const run = (path: string) =>
      call('POST', '/v1beta/interactions', {
        agent: 'scripted',
        input: [{ type: 'code_execution_call', arguments: { code: code(path), language: 'bash' } }],
        environment: answer.environment,
      });
    const first = await run('/one');
    expect(first.status, first.text).toBe(200);
    const tradedAtFirst = trades;
    expect(received.find((entry) => entry.path === '/one')?.authorization).toBe(
      `Bearer py-access-${tradedAtFirst}`,
    );
    await new Promise((done) => setTimeout(done, 3500));
    const second = await run('/two');
    expect(trades).toBeGreaterThan(tradedAtFirst);
    expect(received.find((entry) => entry.path === '/two')?.authorization).toBe(
      `Bearer py-access-${trades}`,
    );
    for (const ran of [first, second]) {
      expect(ran.text).toMatch(/SEEN=hookbox-credential-[0-9a-f]{32}/);
      expect(ran.text).not.toMatch(/py-access-\d/);
    }
    await call('DELETE', `/v1beta/environments/${answer.environment}`);

    expect(await runPython(server, OTHER, STRANGER)).toEqual({
      'py-env': 404,
      'py-bearer': 404,
      'py-oauth': 404,
    });
    expect(await runPython(server, KEY, DELETE_ALL)).toEqual({
      deleted: ['py-bearer', 'py-env', 'py-oauth'],
      left: [],
    });
  });
});
