// docs/environments.md, "Repository sources": its JavaScript SDK, Python SDK and curl examples,
// run as written (doc-snippets.ts) against a real `hookbox serve`. Their github.com is a real git
// server (git http-backend) on loopback, which the egress proxy's test configuration maps the name
// to; the examples' https:// becomes http:// on that server's port, nothing else changes.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { runSnippet } from './doc-snippets.js';
import { makeRepository, startGitServer, type GitServer } from './git-server.js';

const KEY = 'sdk-repositories-docs-key';
let server: RunningServer;
let git: GitServer;
let replace: Record<string, string>;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'hookbox-git-docs-'));
  mkdirSync(join(root, 'octocat'));
  makeRepository(join(root, 'octocat'), 'Hello-World', { README: 'Hello World!\n' });
  git = await startGitServer(root);
  replace = { 'https://github.com/': `http://github.com:${git.port}/` };
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-repos-docs-')),
    logger,
    startEngine: false,
    // Test configuration only: github.com leads to the git server on this machine.
    egress: { testing: { trustedUpstreams: { 'github.com': '127.0.0.1' } } },
  });
  server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [KEY], logger, controller });
});

afterAll(async () => {
  await server?.close();
  git?.close();
});

const run = (name: string) => runSnippet(server, KEY, 'environments.md', name, replace);

describe('docs/environments.md repository examples', () => {
  it('the JavaScript SDK example', async () => {
    const seen = git.requests.length;
    const out = await run('repository-js');
    expect(out).toMatch(/^active repository workspace\/Hello-World$/m);
    expect(out).toMatch(/^refused 400$/m);
    expect(git.requests.slice(seen).join('\n')).toContain('/octocat/Hello-World.git/info/refs');
    expect((await server.service.listEnvironments()).length).toBe(0);
  });

  it('the Python SDK example', async () => {
    const out = await run('repository-python');
    expect(out).toContain("active [('repository', 'workspace/src/hello')]");
    expect((await server.service.listEnvironments()).length).toBe(0);
  });

  it('the curl example', async () => {
    const out = await run('repository-curl');
    expect(out).toMatch(/^Hello World!$/m);
    expect(out).toMatch(
      /"code":400,"message":"sources\[0\]\.source: git could not clone http:\/\/github\.com:\d+\/octocat\/no-such-repo\.git: /,
    );
    expect((await server.service.listEnvironments()).length).toBe(0);
  });
});
