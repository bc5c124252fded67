// The canonical request path (src/server/request-path.ts): what the router matches and what every
// authorisation decision reads. Pure logic; test/integration/admin-paths.test.ts attacks a server.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import {
  canonicalUrl,
  checkPathSegments,
  routedPath,
  v1betaUrl,
} from '../../../src/server/request-path.js';

describe('canonicalUrl and routedPath', () => {
  it('decode escaped unreserved characters, in either case, and nothing else', () => {
    expect(routedPath('/%63onsole/api/overview')).toBe('/console/api/overview');
    expect(routedPath('/%6detrics')).toBe('/metrics');
    expect(routedPath('/%6D%65%74%72%69%63%73')).toBe('/metrics');
    expect(routedPath('/a%2Db%2ec%5Fd%7Ee')).toBe('/a-b.c_d~e');
    // Reserved characters stay escaped, as the router keeps them: `..%2F` is not a segment.
    expect(routedPath('/files/..%2Fetc%2Fpasswd')).toBe('/files/..%2Fetc%2Fpasswd');
    expect(routedPath('/a%20b%25c')).toBe('/a%20b%25c');
  });

  it('take an absolute-form target by its path, and end the path at ? or #', () => {
    expect(routedPath('http://127.0.0.1:8080/metrics')).toBe('/metrics');
    expect(routedPath('HTTPS://example.com/%63onsole/api/overview?x=1')).toBe(
      '/console/api/overview',
    );
    expect(routedPath('http://example.com')).toBe('/');
    expect(routedPath('/metrics#fragment')).toBe('/metrics');
    expect(canonicalUrl('/%6detrics?name=%6d')).toBe('/metrics?name=%6d');
  });

  it('rewrite /v1 to /v1beta after decoding, so /%761/… is /v1beta/… too', () => {
    expect(v1betaUrl('/v1/interactions')).toBe('/v1beta/interactions');
    expect(routedPath('/v1/environments')).toBe('/v1beta/environments');
    expect(routedPath('/%761/environments')).toBe('/v1beta/environments');
    expect(routedPath('/v1beta/environments')).toBe('/v1beta/environments');
    expect(routedPath('/v10/x')).toBe('/v10/x');
  });

  it('leave a malformed escape to the router, never decoding around it into a new one', () => {
    expect(canonicalUrl('/%%36%64etrics')).toBe('/%%36%64etrics');
    expect(canonicalUrl('/%6')).toBe('/%6');
  });

  it('are idempotent: the check after the rewrite sees what the router sees', () => {
    for (const url of [
      '/%63onsole/api/overview',
      '/%2563onsole',
      'http://h/%6detrics?q',
      '/v1/%65nvironments',
      '/files/a%2Fb',
    ])
      expect(canonicalUrl(canonicalUrl(url))).toBe(canonicalUrl(url));
  });
});

describe('checkPathSegments', () => {
  const refusal = (path: string) => {
    try {
      checkPathSegments(path);
    } catch (error) {
      expect(error).toBeInstanceOf(UserError);
      return error as UserError;
    }
    return undefined;
  };

  it('refuses empty, . and .. segments with a 400 naming path', () => {
    for (const path of [
      '//console/api/overview',
      '/console//api/overview',
      '/console/./api/overview',
      '/v1beta/../console/api/overview',
      '/console/api/overview/..',
      '/console/api/.',
      '/console/api/overview//',
    ]) {
      const error = refusal(path);
      expect(error, path).toBeDefined();
      expect(error!.code).toBe('invalid_argument');
      expect(error!.details.field).toBe('path');
    }
    expect(refusal(routedPath('/%2e%2e/metrics'))?.message).toContain('".." segment');
  });

  it('lets ordinary paths through, a trailing slash included', () => {
    for (const path of [
      '/',
      '/console',
      '/console/',
      '/metrics',
      '/v1beta/environments/env_1/files/a/',
    ])
      expect(refusal(path), path).toBeUndefined();
  });
});
