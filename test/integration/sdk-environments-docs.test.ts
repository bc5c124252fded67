// docs/environments.md, "Environments as a resource": its JavaScript SDK, Python SDK and curl
// examples, run as written against a real `hookbox serve` (doc-snippets.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedServer, KEY, server, startSharedServer } from './server-helpers.js';
import { runSnippet } from './doc-snippets.js';

beforeAll(startSharedServer);
afterAll(closeSharedServer);

describe('docs/environments.md examples', () => {
  it('the JavaScript SDK example', async () => {
    const out = await runSnippet(server, KEY, 'environments.md', 'environments-js');
    expect(out).toMatch(/^env_[a-z2-7]{20} active 2 10$/m);
    expect(out).toMatch(/^fork 2$/m);
    expect(out).toMatch(/^page 1 true$/m);
    expect((await server.service.listEnvironments()).length).toBe(0);
  });

  it('the Python SDK example', async () => {
    const out = await runSnippet(server, KEY, 'environments.md', 'environments-python');
    const [made] = /^env_[a-z2-7]{20} active 1 6$/m.exec(out) ?? [];
    expect(made, out).toBeDefined();
    expect(out).toMatch(/^fork 1$/m);
    const ids = /^ids (.*)$/m.exec(out)![1]!;
    expect(ids).toContain(made!.split(' ')[0]);
    expect((await server.service.listEnvironments()).length).toBe(0);
  });

  it('the curl example', async () => {
    const out = await runSnippet(server, KEY, 'environments.md', 'environments-curl');
    expect(out).toContain('{"status":"active","file_count":"1","size_bytes":"6"}');
    expect(out).toContain('{"n":1,"more":true}');
    expect(out).toMatch(/sources\[0\]\.type: type "gcs" is not supported/);
    expect((await server.service.listEnvironments()).length).toBe(0);
  });
});
