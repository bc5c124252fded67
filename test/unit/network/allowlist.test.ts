import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import { Allowlist, parseNetworkOptions } from '../../../src/network/allowlist.js';

function refusal(run: () => unknown): UserError {
  try {
    run();
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error('expected a UserError');
}

describe('Allowlist.match', () => {
  const list = new Allowlist([
    { domain: '*' },
    { domain: 'telemetry.example.com', transform: { Authorization: 'Bearer t' } },
    { domain: '*.example.com', transform: { 'X-Wild': 'w' } },
    { domain: '*.deep.example.com' },
    { domain: '203.0.113.7' },
    { domain: '[2001:db8::7]' },
  ]);

  it('takes the most specific entry, whatever the order: exact, longest wildcard, then *', () => {
    expect(list.match('telemetry.example.com')?.transform).toEqual({ Authorization: 'Bearer t' });
    expect(list.match('TELEMETRY.Example.COM.')?.domain).toBe('telemetry.example.com');
    expect(list.match('api.example.com')?.domain).toBe('*.example.com');
    expect(list.match('a.b.example.com')?.domain).toBe('*.example.com');
    expect(list.match('x.deep.example.com')?.domain).toBe('*.deep.example.com');
    expect(list.match('example.com')?.domain).toBe('*');
    expect(list.match('other.org')?.domain).toBe('*');
  });

  it('a wildcard does not match its root domain', () => {
    const only = new Allowlist([{ domain: '*.example.com' }]);
    expect(only.match('example.com')).toBeUndefined();
    expect(only.match('api.example.com')).toBeDefined();
    expect(only.match('evilexample.com')).toBeUndefined();
  });

  it('exact names match only themselves', () => {
    const only = new Allowlist([{ domain: 'api.example.com' }]);
    expect(only.match('api.example.com')).toBeDefined();
    expect(only.match('x.api.example.com')).toBeUndefined();
    expect(only.match('api.example.com.evil.org')).toBeUndefined();
  });

  it('* and wildcards never match a raw IP; an entry naming the address does', () => {
    expect(list.match('198.51.100.1')).toBeUndefined();
    expect(list.match('203.0.113.7')?.domain).toBe('203.0.113.7');
    expect(list.match('[2001:db8:0::7]')?.domain).toBe('[2001:db8::7]');
    expect(new Allowlist([{ domain: '*' }]).match('::1')).toBeUndefined();
  });

  it('international names match in their ASCII form', () => {
    const idn = new Allowlist([{ domain: 'bücher.example' }]);
    expect(idn.match('xn--bcher-kva.example')).toBeDefined();
  });

  it('describes itself without header values', () => {
    expect(JSON.stringify(list.describe())).not.toContain('Bearer');
    expect(list.describe()[1]).toEqual({
      domain: 'telemetry.example.com',
      transform_headers: ['Authorization'],
    });
  });
});

describe('parseNetworkOptions', () => {
  it('no network, "disabled" and an empty allowlist all mean no network', () => {
    expect(parseNetworkOptions(undefined)).toBeUndefined();
    expect(parseNetworkOptions('disabled')).toBeUndefined();
    expect(parseNetworkOptions({ allowlist: [] })).toBeUndefined();
  });

  it('takes the Gemini audit example', () => {
    const list = parseNetworkOptions({
      allowlist: [
        {
          domain: 'telemetry.example.com',
          transform: { Authorization: 'Bearer telemetry_secret_token_123' },
        },
        { domain: '*' },
      ],
    });
    expect(list?.match('telemetry.example.com')?.transform?.Authorization).toBe(
      'Bearer telemetry_secret_token_123',
    );
  });

  it.each([
    [{ allowlist: [{ domain: 'a.*.com' }] }, 'network.allowlist[0].domain', /wildcard/],
    [{ allowlist: [{ domain: '*example.com' }] }, 'network.allowlist[0].domain', /wildcard/],
    [{ allowlist: [{ domain: 'https://x.com' }] }, 'network.allowlist[0].domain', /without scheme/],
    [{ allowlist: [{ domain: 'x.com:443' }] }, 'network.allowlist[0].domain', /without scheme/],
    [{ allowlist: [{ domain: 'bad_label-.com' }] }, 'network.allowlist[0].domain', /not a valid/],
    [
      { allowlist: [{ domain: 'a.com' }, { domain: 'A.com' }] },
      'network.allowlist[1].domain',
      /already allowlisted by network.allowlist\[0\]/,
    ],
    [
      { allowlist: [{ domain: '*', transform: { A: 'b' } }] },
      'network.allowlist[0].transform',
      /every domain/,
    ],
    [
      { allowlist: [{ domain: 'a.com', transform: { Host: 'b' } }] },
      'network.allowlist[0].transform.Host',
      /proxy owns it/,
    ],
    [
      { allowlist: [{ domain: 'a.com', transform: { 'Bad Name': 'b' } }] },
      'network.allowlist[0].transform.Bad Name',
      /header name/,
    ],
    [
      { allowlist: [{ domain: 'a.com', transform: { A: 'x\r\nB: y' } }] },
      'network.allowlist[0].transform.A',
      /CR, LF/,
    ],
    [
      { allowlist: [{ domain: 'a.com', credential: 'Not An Id!' }] },
      'network.allowlist[0].credential',
      /must be a credential id/,
    ],
    [
      { allowlist: [{ domain: 'a.com', credential: 'cred_abc', transform: { A: 'b' } }] },
      'network.allowlist[0].credential',
      /"transform" or "credential", not both/,
    ],
    [
      { allowlist: [{ domain: '*', credential: 'cred_abc' }] },
      'network.allowlist[0].credential',
      /every domain/,
    ],
    [
      { allowlist: [{ domain: 'a.com', extra: 1 }] },
      'network.allowlist[0].extra',
      /unknown field "extra"; known fields: domain, transform, credential/,
    ],
    // A typo names the field and the one meant, as environment.network does (not "domain must be").
    [
      { allowlist: [{ domian: 'a.com' }] },
      'network.allowlist[0].domian',
      /unknown field "domian" \(did you mean "domain"\?\)/,
    ],
    [
      { alowlist: [] },
      'network.alowlist',
      /unknown field "alowlist" \(did you mean "allowlist"\?\)/,
    ],
    ['open', 'network', /network must be "disabled"/],
  ])('refuses %j at %s', (raw, field, message) => {
    const error = refusal(() => parseNetworkOptions(raw));
    expect(error.code).toBe('invalid_argument');
    expect(error.details.field).toBe(field);
    expect(error.message).toMatch(message);
  });
});
