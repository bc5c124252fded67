// Sources of type `repository` (docs/environments.md, "Repository sources"), driven through both
// Gemini SDKs unchanged and plain HTTP against a real `hookbox serve`, real containers, the real
// egress proxy and a real git server (git http-backend) on loopback. The sandbox reaches that
// server only through the proxy, by a name the proxy's test configuration maps to 127.0.0.1; a
// clone that fails, or a host the allowlist does not name, is a 400 naming the source, with no
// environment left behind. `gcs` and `skill_registry` are a 400 naming the type.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import { fetchJson } from './api-helpers.js';
import { makeRepository, startGitServer, type GitServer } from './git-server.js';
import { jsClient, runPython } from './sdk-helpers.js';
import { resourcesOf } from './server-helpers.js';

const KEY = 'sdk-repositories-key';
const GIT_HOST = 'git.hookbox.test';
const NETWORK = { allowlist: [{ domain: GIT_HOST }] };

let server: RunningServer;
let git: GitServer;
let commit: string;
let repoUrl: string;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'hookbox-git-root-'));
  commit = makeRepository(root, 'hello', {
    'README.md': '# hello from git\n',
    'src/main.py': 'print("cloned")\n',
  });
  git = await startGitServer(root);
  repoUrl = `http://${GIT_HOST}:${git.port}/hello.git`;
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-sdk-repos-')),
    logger,
    startEngine: false,
    egress: {
      testing: {
        // Test configuration only: this name leads to the git server on this machine.
        trustedUpstreams: { [GIT_HOST]: '127.0.0.1' },
        // Vetted like any DNS answer, and refused by the proxy: the address is private.
        hosts: { 'private.hookbox.test': ['10.11.12.13'] },
      },
    },
  });
  server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [KEY], logger, controller });
});

afterAll(async () => {
  await server?.close();
  git?.close();
});

const call = (method: string, path: string, body?: object) =>
  fetchJson(server, method, path, body, { 'x-goog-api-key': KEY });

/** Runs bash in environment `id` through an interaction; the code's output. */
async function shell(id: string, code: string): Promise<string> {
  const ran = await call('POST', '/v1beta/interactions', {
    agent: 'scripted',
    environment: id,
    input: [{ type: 'code_execution_call', id: 'c1', arguments: { code, language: 'bash' } }],
  });
  expect(ran.status, ran.text).toBe(200);
  const result = (ran.json.steps as { type: string; result?: string }[]).find(
    (step) => step.type === 'code_execution_result',
  );
  return result?.result ?? '';
}

describe('repository sources through the JavaScript SDK', () => {
  it('clones through the allowlist into workspace/<name>, beside inline sources', async () => {
    const seen = git.requests.length;
    const ai = jsClient(server, KEY);
    const env = await ai.environments.create({
      sources: [
        { type: 'inline', target: 'workspace/notes.txt', content: 'mine\n' },
        { type: 'repository', source: repoUrl },
      ],
      network: NETWORK,
    });
    expect(env.status).toBe('active');
    expect(env.sources).toEqual([
      { type: 'inline', target: 'workspace/notes.txt' },
      { type: 'repository', target: 'workspace/hello', source: repoUrl },
    ]);
    // notes.txt, README.md, src/main.py and git's own files.
    expect(Number(env.file_count)).toBeGreaterThan(3);
    const out = await shell(
      env.id!,
      'cat /workspace/hello/README.md; git -C /workspace/hello log --format=%H; cat /workspace/notes.txt',
    );
    expect(out).toBe(`# hello from git\n${commit}\nmine\n`);
    // git's smart protocol, answered by the server on loopback: only the proxy leads there.
    expect(git.requests.slice(seen)).toContain('GET /hello.git/info/refs?service=git-upload-pack');
    expect((await ai.environments.get(env.id!)).sources).toHaveLength(2);
    await ai.environments.delete(env.id!);
  });

  it('gcs and skill_registry are a 400 naming the type', async () => {
    const ai = jsClient(server, KEY);
    for (const type of ['gcs', 'skill_registry']) {
      const failure = await ai.environments
        .create({ sources: [{ type, source: 'somewhere' }] })
        .then(
          () => undefined,
          (error: { status?: number; message: string }) => error,
        );
      expect(failure?.status).toBe(400);
      // The SDK quotes the body's JSON, so the message's quotes come escaped.
      expect(failure?.message).toContain('sources[0].type: type');
      expect(failure?.message).toMatch(new RegExp(`${type}.{0,3}" is not supported`));
    }
  });
});

describe('repository sources through the Python SDK', () => {
  it('clones into the target it is given; the files API reads the cloned bytes', async () => {
    const printed = await runPython(
      server,
      KEY,
      `
env = client.environments.create(
    sources=[{"type": "repository", "source": os.environ["REPO"], "target": "workspace/src/app"}],
    network={"allowlist": [{"domain": "${GIT_HOST}"}]},
)
got = client.environments.get(id=env.id)
refused = None
try:
    client.environments.create(sources=[{"type": "skill_registry", "source": "x"}])
except Exception as error:
    refused = [getattr(error, "status_code", None) or getattr(error, "code", None), str(error)]
print(json.dumps({"id": env.id, "sources": [s.model_dump(mode="json", exclude_none=True) for s in got.sources], "refused": refused}))
`,
      { REPO: repoUrl },
    );
    expect(printed.sources).toEqual([
      { type: 'repository', target: 'workspace/src/app', source: repoUrl },
    ]);
    expect(printed.refused[0]).toBe(400);
    expect(printed.refused[1]).toContain('sources[0].type: type "skill_registry" is not supported');
    const file = await fetch(
      `${server.url}/v1beta/environments/${printed.id}/files/src/app/src/main.py`,
      { headers: { 'x-goog-api-key': KEY } },
    );
    expect(await file.text()).toBe('print("cloned")\n');
    await call('DELETE', `/v1beta/environments/${printed.id}`);
  });
});

describe('bad repository sources: a 400 naming the field; nothing is left behind', () => {
  const source = (url: string, extra: object = {}) => [
    { type: 'repository', source: url, ...extra },
  ];
  it.each([
    [
      'a repository that does not exist',
      (): string => `http://${GIT_HOST}:${git.port}/missing.git`,
      {},
      NETWORK,
      'sources[0].source',
      /git could not clone .*missing\.git/,
    ],
    [
      'a host the allowlist does not name',
      (): string => `http://other.hookbox.test:${git.port}/hello.git`,
      {},
      NETWORK,
      'sources[0].source',
      /host "other\.hookbox\.test" is not in the environment's network allowlist/,
    ],
    [
      'no network at all',
      (): string => repoUrl,
      {},
      undefined,
      'sources[0].source',
      /not in the environment's network allowlist/,
    ],
    [
      'an allowlisted host the proxy refuses (a private address)',
      (): string => 'http://private.hookbox.test/hello.git',
      {},
      { allowlist: [{ domain: 'private.hookbox.test' }] },
      'sources[0].source',
      /git could not clone/,
    ],
    [
      'a git:// URL',
      (): string => `git://${GIT_HOST}/hello.git`,
      {},
      NETWORK,
      'sources[0].source',
      /http:\/\/ or https:\/\//,
    ],
    [
      'credentials in the URL',
      (): string => `http://user:pw@${GIT_HOST}:${git.port}/hello.git`,
      {},
      NETWORK,
      'sources[0].source',
      /must not carry credentials/,
    ],
    [
      'a target outside workspace/',
      (): string => repoUrl,
      { target: '.agents/repo' },
      NETWORK,
      'sources[0].target',
      /under "workspace\/"/,
    ],
    [
      'a target with ..',
      (): string => repoUrl,
      { target: 'workspace/../etc' },
      NETWORK,
      'sources[0].target',
      /"\.\."/,
    ],
    [
      'an unknown key',
      (): string => repoUrl,
      { branch: 'main' },
      NETWORK,
      'sources[0].branch',
      /"source" and "target" only/,
    ],
  ] as const)('%s', async (_name, url, extra, network, field, message) => {
    const before = (await server.service.listEnvironments()).length;
    const answer = await call('POST', '/v1beta/environments', {
      sources: source(url(), extra),
      ...(network ? { network } : {}),
    });
    expect(answer.status, answer.text).toBe(400);
    const error = apiErrorOf(answer.json);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
    expect((await server.service.listEnvironments()).length).toBe(before);
  });

  it('a target another source writes into is a 400 naming the later source, in request order', async () => {
    const answer = await call('POST', '/v1beta/environments', {
      sources: [
        { type: 'repository', source: repoUrl, target: 'workspace/app' },
        { type: 'inline', target: 'workspace/app/extra.txt', content: 'x' },
        { type: 'inline', target: 'etc/passwd', content: 'x' },
      ],
      network: NETWORK,
    });
    expect(answer.status, answer.text).toBe(400);
    // The inline source at index 2 is named by its place in the whole list.
    expect(apiErrorOf(answer.json).field).toBe('sources[2].target');
    const clash = await call('POST', '/v1beta/environments', {
      sources: [
        { type: 'inline', target: 'workspace/app/extra.txt', content: 'x' },
        { type: 'repository', source: repoUrl, target: 'workspace/app' },
      ],
      network: NETWORK,
    });
    expect(clash.status, clash.text).toBe(400);
    expect(apiErrorOf(clash.json)).toMatchObject({
      field: 'sources[1].target',
      message: expect.stringMatching(/overlaps "workspace\/app\/extra.txt"/),
    });
  });

  it('the container and volumes of a failed clone are removed, not only unlisted', async () => {
    const before = await resourcesOf(server);
    const answer = await call('POST', '/v1beta/environments', {
      sources: source(`http://${GIT_HOST}:${git.port}/missing.git`),
      network: NETWORK,
    });
    expect(answer.status, answer.text).toBe(400);
    expect(await resourcesOf(server)).toEqual(before);
  });
});
