// docs/environments.md, "Files through the SDKs": its JavaScript SDK, Python SDK and curl examples
// (upload, an overwrite refused, extract, list, download), run as written against a real
// `hookbox serve` (doc-snippets.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedServer, KEY, server, startSharedServer } from './server-helpers.js';
import { runSnippet } from './doc-snippets.js';

beforeAll(startSharedServer);
afterAll(closeSharedServer);

const RFC3339 = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/;

describe('docs/environments.md files examples', () => {
  it('the JavaScript SDK example', async () => {
    const out = await runSnippet(server, KEY, 'environments.md', 'files-js');
    expect(out).toMatch(/^again 409$/m);
    expect(out).toMatch(/^workspace\/data directory \d+$/m);
    expect(out).toMatch(/^workspace\/data\/raw\.bin file 4$/m);
    expect(out).toMatch(/^workspace\/project\/src directory \d+$/m);
    expect(out).toMatch(/^workspace\/project\/src\/app\.py file 12$/m);
    expect(out).toMatch(/^download 000102ff$/m);
    expect((await server.service.listEnvironments()).length).toBe(0);
  });

  it('the Python SDK example', async () => {
    const out = await runSnippet(server, KEY, 'environments.md', 'files-python');
    expect(out).toMatch(/^again 409$/m);
    expect(out).toMatch(new RegExp(`^workspace/project/src directory ${RFC3339.source}$`, 'm'));
    expect(out).toMatch(new RegExp(`^workspace/project/src/app\\.py file ${RFC3339.source}$`, 'm'));
    expect(out).toMatch(/^download 000102ff$/m);
    expect((await server.service.listEnvironments()).length).toBe(0);
  });

  it('the curl example', async () => {
    const out = await runSnippet(server, KEY, 'environments.md', 'files-curl');
    const lines = out.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      '{}',
      '{"path":"workspace/docs/hello.txt","type":"file","size_bytes":"13"}',
      '409',
      expect.stringMatching(new RegExp(`^workspace/project/src directory ${RFC3339.source}$`)),
    ]);
    expect(lines[4]).toMatch(new RegExp(`^workspace/project/src/app\\.py file ${RFC3339.source}$`));
    expect(lines.slice(5)).toEqual(['hello, world', '{}']);
    expect((await server.service.listEnvironments()).length).toBe(0);
  });
});
