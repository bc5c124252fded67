// The keys file (plain and structured), key lookup, the token bucket and the quota book: pure logic.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyTable, loadTenantKeys } from '../../src/tenants/keys.js';
import { canSee, isOwnedBy } from '../../src/tenants/ownership.js';
import { QuotaBook, defaultMaxEnvironments } from '../../src/tenants/quotas.js';
import { DEFAULT_TENANT_QUOTAS, type Caller } from '../../src/tenants/tenant.js';
import { TokenBucketStore } from '../../src/tenants/token-bucket-store.js';

const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'hookbox-keys-')), 'keys');
  writeFileSync(path, text);
  return path;
};

describe('keys', () => {
  it('a plain file and HOOKBOX_API_KEYS: each key its own tenant, named by its digest', () => {
    const keys = loadTenantKeys({
      env: { HOOKBOX_API_KEYS: 'first-key-0001' },
      file: file('# a comment\nsecond-key-0002\n'),
    });
    expect(keys.map((key) => key.role)).toEqual(['tenant', 'tenant']);
    const digest = createHash('sha256').update('first-key-0001').digest('hex');
    expect(keys[0]!.name).toBe(`key-${digest.slice(0, 8)}`);
    expect(keys[0]!.quotas).toEqual(DEFAULT_TENANT_QUOTAS);
  });

  it('the structured form: names, roles, a key given by its SHA-256, quotas over the defaults', () => {
    const sha = createHash('sha256').update('bob-secret-key').digest('hex');
    const keys = loadTenantKeys({
      env: {},
      file: file(
        `keys:\n  - {name: alice, key: alice-secret-key, quotas: {environments: 3}}\n  - {name: bob, sha256: ${sha}}\n  - {name: ops, key: ops-secret-key, role: admin}\n`,
      ),
    });
    const table = new KeyTable(keys);
    expect(table.identify({ 'x-goog-api-key': 'alice-secret-key' })).toMatchObject({
      tenant: 'alice',
      role: 'tenant',
      quotas: { environments: 3, interactions: DEFAULT_TENANT_QUOTAS.interactions },
    });
    expect(table.identify({ authorization: 'Bearer bob-secret-key' })?.tenant).toBe('bob');
    expect(table.identify({ 'x-goog-api-key': 'ops-secret-key' })?.role).toBe('admin');
    expect(() => table.identify({ 'x-goog-api-key': 'alice-secret-kez' })).toThrow(/not valid/);
    expect(() => table.identify({})).toThrow(/missing API key/);
    // JSON is YAML too.
    expect(
      loadTenantKeys({ env: {}, file: file('[{"name": "j", "key": "json-key-0001"}]') })[0]!.name,
    ).toBe('j');
  });

  it.each([
    ['keys:\n  - {name: a}\n', /keys\[0\]: give exactly one of "key" and "sha256"/],
    ['keys:\n  - {name: a, sha256: abc}\n', /keys\[0\]\.sha256: 64 hex digits/],
    ['keys:\n  - {name: a, key: short}\n', /keys\[0\]\.key: API keys must be at least 8/],
    ['keys:\n  - {name: a, key: long-enough-1, role: root}\n', /keys\[0\]\.role/],
    ['keys:\n  - {name: a, key: long-enough-1, quotas: {environmnets: 2}}\n', /environmnets/],
    [
      'keys:\n  - {name: a, key: long-enough-1}\n  - {name: a, key: long-enough-2, role: admin}\n',
      /keys\[1\]\.role: tenant a is listed with two roles/,
    ],
  ])('refuses %j naming the entry and field', (text, message) => {
    expect(() => loadTenantKeys({ env: {}, file: file(text) })).toThrow(message);
  });

  it('every keys-file error reads "--api-keys-file: FILE: keys[i].field: rule" (docs/tenants.md)', () => {
    for (const text of [
      'keys:\n  - {name: a, sha256: abc}\n',
      'keys:\n  - {name: a, key: short}\n',
      'keys:\n  - {name: a, key: long-enough-1}\n  - {name: a, key: long-enough-2, role: admin}\n',
    ]) {
      const path = file(text);
      expect(() => loadTenantKeys({ env: {}, file: path })).toThrow(
        new RegExp(`^--api-keys-file: ${path}: keys\\[\\d\\]\\.(sha256|key|role): `),
      );
    }
  });

  it('HOOKBOX_ADMIN_KEYS: a one-line admin key, its own tenant named as a plain key is', () => {
    const keys = loadTenantKeys({
      env: { HOOKBOX_ADMIN_KEYS: 'change-me-please', HOOKBOX_API_KEYS: 'tenant-key-0001' },
    });
    const digest = createHash('sha256').update('change-me-please').digest('hex');
    const table = new KeyTable(keys);
    expect(table.identify({ 'x-goog-api-key': 'change-me-please' })).toMatchObject({
      tenant: `key-${digest.slice(0, 8)}`,
      role: 'admin',
    });
    expect(table.identify({ 'x-goog-api-key': 'tenant-key-0001' })?.role).toBe('tenant');
    expect(() =>
      loadTenantKeys({
        env: { HOOKBOX_ADMIN_KEYS: 'same-key-0001', HOOKBOX_API_KEYS: 'same-key-0001' },
      }),
    ).toThrow(/^HOOKBOX_API_KEYS: a key is also in HOOKBOX_ADMIN_KEYS/);
  });

  it('a key moved from HOOKBOX_API_KEYS into a keys file keeps what it made (docs/tenants.md)', () => {
    const before = new KeyTable(loadTenantKeys({ env: { HOOKBOX_API_KEYS: 'alice-secret-key' } }));
    const made = before.identify({ 'x-goog-api-key': 'alice-secret-key' })!.tenant;
    expect(made).toMatch(/^key-[0-9a-f]{8}$/);
    const after = new KeyTable(
      loadTenantKeys({
        env: {},
        file: file(
          'keys:\n  - {name: alice, key: alice-secret-key}\n  - {name: alice, key: alice-second-key}\n  - {name: bob, key: bob-secret-key}\n',
        ),
      }),
    );
    const alice = after.identify({ 'x-goog-api-key': 'alice-secret-key' })!;
    expect(alice.tenant).toBe('alice');
    expect(canSee(made, alice)).toBe(true);
    expect(isOwnedBy(made, alice)).toBe(true);
    // Only that key: another key of alice's, and bob, do not see it.
    expect(canSee(made, after.identify({ 'x-goog-api-key': 'alice-second-key' }))).toBe(false);
    expect(canSee(made, after.identify({ 'x-goog-api-key': 'bob-secret-key' }))).toBe(false);
  });
});

describe('ownership', () => {
  const alice: Caller = { tenant: 'alice', role: 'tenant', quotas: DEFAULT_TENANT_QUOTAS };
  const ops: Caller = { tenant: 'ops', role: 'admin', quotas: DEFAULT_TENANT_QUOTAS };
  it('the owner and an admin see a resource; anyone else, and an ownerless one, not', () => {
    expect(canSee('alice', alice)).toBe(true);
    expect(canSee('bob', alice)).toBe(false);
    expect(canSee(null, alice)).toBe(false);
    expect(canSee('bob', ops)).toBe(true);
    expect(canSee(null, ops)).toBe(true);
  });
});

describe('the token bucket', () => {
  it('lets a burst of two seconds through, then one request per 1/rate, with the wait as ttl', () => {
    let now = 0;
    const store = new TokenBucketStore(undefined, () => now);
    const take = () =>
      new Promise<{ current: number; ttl: number }>((done) =>
        store.incr('t', (_e, result) => done(result), 1000, 5),
      );
    const refused = async () => (await take()).current > 5;
    return (async () => {
      for (let i = 0; i < 10; i++) expect(await refused()).toBe(false);
      const over = await take();
      expect(over.current).toBe(6);
      expect(over.ttl).toBe(200);
      now += 200;
      expect(await refused()).toBe(false);
      expect(await refused()).toBe(true);
    })();
  });
});

describe('the quota book', () => {
  const caller: Caller = {
    tenant: 'a',
    role: 'tenant',
    quotas: { ...DEFAULT_TENANT_QUOTAS, environments: 2, interactions: 1, pooledPerMinute: 1 },
  };
  it('reserves environment places synchronously against the tenant quota and the ceiling', () => {
    const book = new QuotaBook(3);
    const first = book.reserveEnvironment(caller, 0, 0);
    book.reserveEnvironment(caller, 0, 0);
    expect(() => book.reserveEnvironment(caller, 0, 0)).toThrow(/^environments: tenant a/);
    first();
    first();
    const other = { ...caller, tenant: 'b' };
    // The server: 1 live + 1 being made by a + 1 being made by b = its ceiling of 3.
    book.reserveEnvironment(other, 0, 1);
    expect(() => book.reserveEnvironment(other, 0, 1)).toThrow(/^max_environments/);
  });

  it('counts running interactions and pooled hand-outs per minute', () => {
    let now = 0;
    const book = new QuotaBook(10, () => now);
    const end = book.startInteraction(caller);
    expect(() => book.startInteraction(caller)).toThrow(/^interactions/);
    end();
    book.startInteraction(caller);
    expect(book.pooledAllowed(caller)).toBe(true);
    book.recordPooled(caller);
    expect(book.pooledAllowed(caller)).toBe(false);
    // Past the quota: a 429 naming it, to retry when the hand-out leaves the minute.
    now += 20_000;
    let refused: unknown;
    try {
      book.checkPooled(caller);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      code: 'quota_exceeded',
      details: { quota: 'pooled_per_minute', retry_after_s: 40 },
    });
    now += 40_001;
    expect(book.pooledAllowed(caller)).toBe(true);
    expect(() => book.checkPooled(caller)).not.toThrow();
  });

  it('the default ceiling is one environment per 256 MiB, from 2 to 1000', () => {
    expect(defaultMaxEnvironments(24 * 1024 ** 3)).toBe(96);
    expect(defaultMaxEnvironments(256 * 1024 ** 2)).toBe(2);
    expect(defaultMaxEnvironments(1024 ** 4)).toBe(1000);
  });
});
