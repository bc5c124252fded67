// docs/credentials.md: the key, the sealing, the store's input rules and what it never returns.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../../src/credentials/credentials.js';
import {
  checkPlaceholdersBound,
  PLACEHOLDER_PREFIX,
  placeholdersOf,
  resolveAllowlist,
} from '../../../src/credentials/environment-credentials.js';
import { MemoryCredentialRows } from '../../../src/credentials/rows.js';
import {
  seal,
  secretKeyOf,
  secretKeyWarning,
  unseal,
} from '../../../src/credentials/secret-key.js';
import { SqliteCredentialRows } from '../../../src/credentials/sqlite-rows.js';
import { parseToolEnv } from '../../../src/controller/tool-env.js';
import { HookboxError, httpStatusOf } from '../../../src/errors/index.js';
import { parseNetworkOptions } from '../../../src/network/allowlist.js';
import { openApiDocument } from '../../../src/server/openapi.js';

const KEY = randomBytes(32).toString('base64');
const OTHER_KEY = randomBytes(32).toString('hex');
const VALUE = 'sk-live-credential-value-7f3a';

function refusal(run: () => unknown): HookboxError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HookboxError);
    return error as HookboxError;
  }
  throw new Error('expected a refusal');
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<HookboxError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(HookboxError);
    return error as HookboxError;
  }
  throw new Error('expected a refusal');
}

describe('the key (HOOKBOX_SECRET_KEY)', () => {
  it('takes 32 bytes as base64 or 64 hex digits as the key itself', () => {
    const bytes = randomBytes(32);
    expect(secretKeyOf(bytes.toString('base64'))).toEqual(bytes);
    expect(secretKeyOf(bytes.toString('hex'))).toEqual(bytes);
  });

  it('stretches a passphrase of 32+ characters with HKDF: 32 bytes, stable, distinct', () => {
    const phrase = 'correct horse battery staple, twice over';
    expect(secretKeyOf(phrase)).toHaveLength(32);
    expect(secretKeyOf(phrase)).toEqual(secretKeyOf(phrase));
    expect(secretKeyOf(phrase)).not.toEqual(secretKeyOf(`${phrase}!`));
  });

  it.each([
    [undefined, /HOOKBOX_SECRET_KEY is not set/],
    ['', /HOOKBOX_SECRET_KEY is not set/],
    ['short passphrase', /HOOKBOX_SECRET_KEY is too short/],
  ])('refuses %j with a 503 naming the variable', (text, message) => {
    const error = refusal(() => secretKeyOf(text));
    expect(error.code).toBe('credentials_unavailable');
    expect(httpStatusOf(error)).toBe(503);
    expect(error.details.field).toBe('HOOKBOX_SECRET_KEY');
    expect(error.message).toMatch(message);
  });
});

describe('sealing (AES-256-GCM)', () => {
  const key = secretKeyOf(KEY);

  it('opens what it sealed, with a fresh nonce each time and no plaintext inside', () => {
    const one = seal(key, VALUE, 'cred_a\nalice');
    const two = seal(key, VALUE, 'cred_a\nalice');
    expect(one).not.toBe(two);
    expect(one.startsWith('v1:')).toBe(true);
    expect(one).not.toContain(VALUE);
    expect(Buffer.from(one.slice(3), 'base64').toString('latin1')).not.toContain(VALUE);
    expect(unseal(key, one, 'cred_a\nalice', 'credential cred_a')).toBe(VALUE);
  });

  it('refuses another key, another context or a changed byte, saying so', () => {
    const sealed = seal(key, VALUE, 'cred_a\nalice');
    const other = secretKeyOf(OTHER_KEY);
    expect(
      refusal(() => unseal(other, sealed, 'cred_a\nalice', 'credential cred_a')).message,
    ).toMatch(/credential cred_a cannot be decrypted with this HOOKBOX_SECRET_KEY/);
    expect(refusal(() => unseal(key, sealed, 'cred_a\nbob', 'x')).code).toBe(
      'credentials_unavailable',
    );
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    expect(
      refusal(() => unseal(key, `v1:${bytes.toString('base64')}`, 'cred_a\nalice', 'x')).message,
    ).toMatch(/cannot be decrypted/);
  });
});

describe('Credentials', () => {
  it('refuses to store anything without a key, naming the variable', async () => {
    const credentials = new Credentials(new MemoryCredentialRows(), () => undefined);
    const error = await asyncRefusal(() => credentials.create({ name: 'a', value: 'b' }, null));
    expect(error.code).toBe('credentials_unavailable');
    expect(error.message).toMatch(/HOOKBOX_SECRET_KEY/);
    expect(await credentials.list()).toEqual([]);
  });

  it('stores sealed, shows names never values, opens with templates filled, deletes', async () => {
    const rows = new MemoryCredentialRows();
    const credentials = new Credentials(rows, () => KEY);
    const made = await credentials.create(
      { name: 'api', value: VALUE, headers: { Authorization: 'Bearer {{value}}' } },
      'alice',
    );
    expect(made).toMatchObject({
      id: expect.stringMatching(/^cred_[a-z2-7]{20}$/),
      object: 'credential',
      name: 'api',
      header_names: ['Authorization'],
      has_value: true,
      tenant: 'alice',
    });
    expect(JSON.stringify(made)).not.toContain(VALUE);
    expect(JSON.stringify(await credentials.list())).not.toContain(VALUE);
    expect(JSON.stringify(await rows.list())).not.toContain(VALUE);
    expect(await credentials.get(made.id)).toEqual(made);
    expect(await credentials.open(made.id, 'alice', 'f')).toEqual({
      value: VALUE,
      headers: { Authorization: `Bearer ${VALUE}` },
    });
    // Another tenant's id is the same 400 as a missing one.
    for (const [id, tenant] of [
      [made.id, 'bob'],
      [made.id, null],
      ['cred_missing', 'alice'],
    ] as const) {
      const error = await asyncRefusal(() => credentials.open(id, tenant, 'network.x'));
      expect(error.code).toBe('invalid_argument');
      expect(error.details.field).toBe('network.x');
      expect(error.message).toBe(`network.x: no credential ${JSON.stringify(id)}`);
    }
    expect(await credentials.delete(made.id)).toBe(true);
    expect(await credentials.get(made.id)).toBeUndefined();
    expect(await credentials.delete(made.id)).toBe(false);
  });

  it('a key other than the one it was stored with cannot open it', async () => {
    const rows = new MemoryCredentialRows();
    const made = await new Credentials(rows, () => KEY).create({ name: 'a', value: VALUE }, null);
    const error = await asyncRefusal(() =>
      new Credentials(rows, () => OTHER_KEY).open(made.id, null, 'f'),
    );
    expect(error.code).toBe('credentials_unavailable');
    expect(error.message).toMatch(/cannot be decrypted with this HOOKBOX_SECRET_KEY/);
  });

  it.each([
    [{ value: 'x' }, 'body.name', /must be a string/],
    [{ name: 'a' }, 'body.value', /give "value", "headers" or both/],
    [{ name: 'a', value: 'x\r\ny' }, 'body.value', /CR, LF or NUL/],
    [{ name: 'a', headers: { 'Bad Name': 'x' } }, 'body.headers["Bad Name"]', /header name/],
    [{ name: 'a', headers: { Host: 'x' } }, 'body.headers.Host', /proxy owns it/],
    [{ name: 'a', headers: { A: 'Bearer {{value}}' } }, 'body.headers.A', /no "value"/],
    [{ name: 'a', value: 'x', extra: 1 }, 'body.extra', /unknown key "extra"/],
    ['text', 'body', /must be an object/],
  ])('refuses %j naming %s', async (input, field, message) => {
    const credentials = new Credentials(new MemoryCredentialRows(), () => KEY);
    const error = await asyncRefusal(() => credentials.create(input, null));
    expect(error.code).toBe('invalid_argument');
    expect(error.details.field).toBe(field);
    expect(error.message).toMatch(message);
  });
});

describe('the SQLite state file', () => {
  it('holds the credential sealed: its bytes never contain the value', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hookbox-cred-')), 'state.db');
    const rows = new SqliteCredentialRows(path);
    const credentials = new Credentials(rows, () => KEY);
    const made = await credentials.create(
      { name: 'named-in-clear', value: VALUE, headers: { 'X-Api-Key': 'hv-secret-header-9' } },
      'alice',
    );
    rows.close();
    const bytes = [path, `${path}-wal`]
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('');
    expect(bytes).toContain('named-in-clear');
    expect(bytes).not.toContain(VALUE);
    expect(bytes).not.toContain('hv-secret-header-9');
    const reopened = new Credentials(new SqliteCredentialRows(path), () => KEY);
    expect((await reopened.open(made.id, 'alice', 'f')).headers).toEqual({
      'X-Api-Key': 'hv-secret-header-9',
    });
  });
});

describe('environment placeholders', () => {
  it('parses {"credential"} values and refuses malformed ones, naming the field', () => {
    expect(parseToolEnv({ A: 'x', B: { credential: 'cred_abc' } })).toEqual({
      A: 'x',
      B: { credential: 'cred_abc' },
    });
    expect(refusal(() => parseToolEnv({ B: { credential: 'Not An Id!' } })).details.field).toBe(
      'env.B.credential',
    );
    expect(refusal(() => parseToolEnv({ B: { credential: 'cred_a', x: 1 } })).details.field).toBe(
      'env.B',
    );
  });

  it('gives tool code a random token, and refuses one no allowlist entry binds', () => {
    const { env, placeholders } = placeholdersOf({ A: 'plain', KEY: { credential: 'cred_abc' } });
    expect(env.A).toBe('plain');
    expect(env.KEY).toMatch(new RegExp(`^${PLACEHOLDER_PREFIX}[0-9a-f]{32}$`));
    expect(placeholdersOf({ KEY: { credential: 'cred_abc' } }).env.KEY).not.toBe(env.KEY);
    const unbound = refusal(() =>
      checkPlaceholdersBound(
        placeholders,
        parseNetworkOptions({ allowlist: [{ domain: 'a.test', credential: 'cred_other' }] }),
      ),
    );
    expect(unbound.details.field).toBe('env.KEY.credential');
    expect(refusal(() => checkPlaceholdersBound(placeholders, undefined)).message).toMatch(
      /referenced by no network.allowlist entry/,
    );
  });

  it('resolves an allowlist: headers as transform, placeholders with the value, unknown ids named', async () => {
    const credentials = new Credentials(new MemoryCredentialRows(), () => KEY);
    const made = await credentials.create(
      { name: 'a', value: VALUE, headers: { 'X-Key': '{{value}}' } },
      't',
    );
    const { placeholders } = placeholdersOf({ KEY: { credential: made.id } });
    const allowlist = parseNetworkOptions({
      allowlist: [{ domain: 'pypi.test' }, { domain: 'api.test', credential: made.id }],
    })!;
    const resolved = await resolveAllowlist(allowlist, placeholders, credentials, 't');
    expect(resolved.match('api.test')).toEqual({
      domain: 'api.test',
      credential: made.id,
      transform: { 'X-Key': VALUE },
      placeholders: { [placeholders[0]!.token]: VALUE },
    });
    expect(resolved.match('pypi.test')).toEqual({ domain: 'pypi.test' });
    expect(JSON.stringify(resolved.describe())).not.toContain(VALUE);
    const unknown = await asyncRefusal(() =>
      resolveAllowlist(
        parseNetworkOptions({ allowlist: [{ domain: 'a.test', credential: 'cred_nope' }] })!,
        [],
        credentials,
        't',
      ),
    );
    expect(unknown.details.field).toBe('network.allowlist[0].credential');
    expect(httpStatusOf(unknown)).toBe(400);
    // Another tenant cannot reference it.
    const stranger = await asyncRefusal(() => resolveAllowlist(allowlist, [], credentials, 'u'));
    expect(stranger.details.field).toBe('network.allowlist[1].credential');
  });
});

describe('the OpenAPI document', () => {
  it('covers every credentials endpoint, and its Credential has no value', () => {
    const document = openApiDocument({ version: 'test', bodyLimit: 1024 }) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(Object.keys(document.paths['/v1beta/credentials']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1beta/credentials/{id}']!).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    const credential = document.components.schemas.Credential!.properties!;
    expect(Object.keys(credential)).toContain('header_names');
    expect(Object.keys(credential)).not.toContain('value');
    expect(Object.keys(document.components.schemas.CredentialRequest!.properties!)).toEqual([
      'name',
      'value',
      'headers',
    ]);
  });
});

describe('the start-up warning of hookbox serve', () => {
  it('says credentials are off without a usable HOOKBOX_SECRET_KEY, and nothing with one', () => {
    expect(secretKeyWarning(undefined)).toMatch(
      /^credentials are off: HOOKBOX_SECRET_KEY is not set/,
    );
    expect(secretKeyWarning('short')).toMatch(
      /^credentials are off: HOOKBOX_SECRET_KEY is too short/,
    );
    expect(secretKeyWarning(randomBytes(32).toString('base64'))).toBeUndefined();
  });
});
