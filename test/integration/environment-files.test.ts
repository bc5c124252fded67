// The files API (docs/environments.md, "Files") against real containers: bytes in and out of
// /workspace over HTTP, 409 without overwrite, traversal and symlink escapes refused, tar up and
// down, the gates meeting a write of `.env`, the operator's switch that turns that off, the audit.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { extract } from 'tar-stream';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';
import { Hookbox, HookboxApiError } from '../../src/client/index.js';
import { bash, hooksJson, inline, rule } from './helpers.js';
import { apiErrorOf } from './api-error.js';
import type { OpenApiDocument } from './api-helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const KEY = 'files-test-key';
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });

/** Denies any write or delete whose path ends in `.env` (the gate works for either vocabulary). */
const ENV_GATE = `import json, sys
call = json.load(sys.stdin)["tool_call"]
args = call["args"]
path = args.get("TargetFile") or args.get("path") or ""
if path.endswith(".env"):
    print(json.dumps({"decision": "deny", "reason": "no .env files"}))
`;

const gatedSources = [
  hooksJson({
    guard: {
      pre_tool_execution: [
        rule('write_to_file|write_file|delete_file', 'python3 /.agents/env-gate.py'),
      ],
    },
  }),
  inline('.agents/env-gate.py', ENV_GATE),
];

let server: RunningServer;
let environment: Environment;
let base: string;
const headers = { 'x-goog-api-key': KEY };

beforeAll(async () => {
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-files-')),
    logger,
    startEngine: false,
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    // An admin key: the environments here are the library's, owned by no tenant (docs/tenants.md).
    apiKeys: [],
    tenantKeys: [
      { name: 'ops', role: 'admin', digest: keyDigest(KEY), quotas: DEFAULT_TENANT_QUOTAS },
    ],
    logger,
    controller,
  });
  environment = await controller.createEnvironment({ sources: gatedSources });
  base = `${server.url}/v1beta/environments/${environment.id}/files`;
});
afterAll(async () => {
  await server?.close();
});

async function put(path: string, body: string | Buffer, query = '') {
  return fetch(`${base}/${path}${query}`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: body as BodyInit,
  });
}

function tarOf(files: Record<string, string>, extra?: (p: ReturnType<typeof pack>) => void) {
  const archive = pack();
  for (const [name, content] of Object.entries(files)) archive.entry({ name }, content);
  extra?.(archive);
  archive.finalize();
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
}

async function namesIn(archive: Buffer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const unpack = extract();
  const done = new Promise<void>((resolve, reject) => {
    unpack.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        out[header.name] =
          header.type === 'file' ? Buffer.concat(chunks).toString() : `<${header.type}>`;
        next();
      });
    });
    unpack.on('finish', resolve);
    unpack.on('error', reject);
  });
  Readable.from([archive]).pipe(unpack);
  await done;
  return out;
}

describe('files API over HTTP', () => {
  it('writes bytes the tool user owns, reads them back, and refuses to replace without overwrite', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    const created = await put('data/blob.bin', bytes);
    expect(created.status).toBe(200);
    const change: unknown = await created.json();
    expect(change).toMatchObject({ path: 'data/blob.bin', files: 1, bytes: 6 });

    const read = await fetch(`${base}/data/blob.bin`, { headers });
    expect(read.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await read.arrayBuffer())).toEqual(bytes);

    const owner = await environment.call(bash('stat -c %U:%a /workspace/data/blob.bin'));
    expect(execResultOf(owner).stdout.trim()).toBe('tool:644');

    const again = await put('data/blob.bin', 'other');
    expect(again.status).toBe(409);
    expect(apiErrorOf(await again.json())).toMatchObject({ field: 'path', status: 'ABORTED' });
    const replaced = await put('data/blob.bin', 'other', '?overwrite=true');
    expect(replaced.status).toBe(200);
    expect(await (await fetch(`${base}/data/blob.bin`, { headers })).text()).toBe('other');
  });

  it('gives a folder as a JSON listing and deletes files', async () => {
    await put('list/a.txt', 'a');
    await put('list/sub/b.txt', 'bb');
    const listing: unknown = await (await fetch(`${base}/list`, { headers })).json();
    expect(listing).toEqual({
      path: '/workspace/list',
      type: 'directory',
      entries: [
        { name: 'a.txt', type: 'file', size: 1 },
        { name: 'sub', type: 'directory', size: expect.any(Number) as number },
      ],
    });
    const deleted = await fetch(`${base}/list/a.txt`, { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    const gone = await fetch(`${base}/list/a.txt`, { headers });
    expect(gone.status).toBe(404);
    expect(apiErrorOf(await gone.json()).field).toBe('path');
  });

  it('refuses traversal, absolute paths and symlinks that leave the workspace, naming the field', async () => {
    for (const path of ['..%2Fetc%2Fpasswd', 'a/..%2F..%2Fetc', '%2Fetc%2Fpasswd', 'a//b']) {
      const answer = await fetch(`${base}/${path}`, { headers });
      expect(answer.status, path).toBe(400);
      expect(apiErrorOf(await answer.json()).field, path).toBe('path');
    }
    await environment.call(
      bash('ln -s /etc /workspace/out && ln -s /workspace/list /workspace/in'),
    );
    const escaped = await fetch(`${base}/out/passwd`, { headers });
    expect(escaped.status).toBe(400);
    const error = apiErrorOf(await escaped.json());
    expect(error.field).toBe('path');
    expect(error.message).toContain('leads out of /workspace');
    const written = await put('out/evil', 'x');
    expect(written.status).toBe(400);
    // A symlink that stays inside is followed.
    expect(await (await fetch(`${base}/in/sub/b.txt`, { headers })).text()).toBe('bb');
  });

  it('uploads a tar archive into a folder and downloads a folder as one', async () => {
    const archive = await tarOf({ 'one.txt': '1', 'deep/two.txt': '22' });
    const up = await put('unpacked', archive, '?format=tar');
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ files: 2, bytes: 3 });
    const again = await put('unpacked', archive, '?format=tar');
    expect(again.status).toBe(409);

    const whole = await fetch(`${base}?format=tar`, { headers });
    const everything = await namesIn(Buffer.from(await whole.arrayBuffer()));
    expect(everything).toHaveProperty(['unpacked/one.txt'], '1');
    expect(Object.keys(everything).some((name) => name.startsWith('.agents'))).toBe(false);

    const down = await fetch(`${base}/unpacked?format=tar`, { headers });
    expect(down.headers.get('content-type')).toBe('application/x-tar');
    const names = await namesIn(Buffer.from(await down.arrayBuffer()));
    expect(names).toMatchObject({ 'one.txt': '1', 'deep/two.txt': '22' });

    const hostile = await tarOf({ '../escape.txt': 'x' });
    const refused = await put('unpacked', hostile, '?format=tar&overwrite=true');
    expect(refused.status).toBe(400);
    expect(apiErrorOf(await refused.json()).message).toContain('".." segments');
    const linked = await tarOf({}, (p) =>
      p.entry({ name: 'link', type: 'symlink', linkname: '/etc/passwd' }),
    );
    const noLinks = await put('unpacked', linked, '?format=tar');
    expect(noLinks.status).toBe(400);
    expect(apiErrorOf(await noLinks.json()).field).toBe('body');
  });

  it('shows a write of .env to the gates as the write tool: blocked (403), recorded, nothing written', async () => {
    const blocked = await put('config/.env', 'SECRET=1');
    expect(blocked.status).toBe(403);
    const refusal = apiErrorOf(await blocked.json());
    expect(refusal).toMatchObject({ code: 'permission_denied', status: 'PERMISSION_DENIED' });
    expect(refusal.message).toContain('no .env files');
    // The path once, as the gate saw it (never /workspace//workspace/…).
    expect(refusal.message).toContain('a gate blocked the write of /workspace/config/.env:');
    expect((await fetch(`${base}/config/.env`, { headers })).status).toBe(404);
    const viaTar = await put('config', await tarOf({ '.env': 'SECRET=1' }), '?format=tar');
    expect(viaTar.status).toBe(403);

    const records = environment.records();
    const files = records.filter((entry) => entry.kind === 'file');
    expect(files).toContainEqual(
      expect.objectContaining({ op: 'put', path: '/workspace/config/.env', blocked: true }),
    );
    expect(files).toContainEqual(
      expect.objectContaining({ op: 'put', path: '/workspace/data/blob.bin', blocked: false }),
    );
    const hook = records.find(
      (entry) => entry.kind === 'hook' && entry.call_id === refusal.details.call_id,
    );
    expect(hook).toMatchObject({ outcome: 'deny' });
  });

  it('the TS client covers the files API', async () => {
    const client = new Hookbox({ baseUrl: server.url, apiKey: KEY });
    await client.environments.files.put(environment.id, 'client/x.txt', 'from the client');
    const read = await client.environments.files.get(environment.id, 'client/x.txt');
    expect(Buffer.from(read).toString()).toBe('from the client');
    const listing = await client.environments.files.list(environment.id, 'client');
    expect(listing.entries.map((entry) => entry.name)).toEqual(['x.txt']);
    const error = await client.environments.files
      .put(environment.id, 'client/x.txt', 'again')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookboxApiError);
    expect((error as HookboxApiError).status).toBe(409);
    const archive = await client.environments.files.getArchive(environment.id, 'client');
    expect(await namesIn(Buffer.from(archive))).toMatchObject({ 'x.txt': 'from the client' });
    await client.environments.files.putArchive(
      environment.id,
      'client2',
      await tarOf({ 'y.txt': 'y' }),
    );
    await client.environments.files.delete(environment.id, 'client2/y.txt');
    expect((await client.environments.files.list(environment.id, 'client2')).entries).toEqual([]);
  });
});

describe('files API in the OpenAPI document', () => {
  it('lists every files route and method, and its references resolve', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    expect(Object.keys(document.paths['/v1beta/environments/{id}/files/{path}']!)).toEqual([
      'get',
      'put',
      'delete',
    ]);
    expect(Object.keys(document.paths['/v1beta/environments/{id}/files']!)).toEqual(['get', 'put']);
    const refs = [...JSON.stringify(document).matchAll(/"#\/components\/schemas\/([A-Za-z]+)"/g)];
    for (const [, name] of refs) expect(document.components.schemas, name).toHaveProperty(name!);
  });
});

describe('files API without the gates (the operator turned them off)', () => {
  it('writes .env through the library, recorded as ungated', async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-files-')),
      logger,
      startEngine: false,
      filesApiGates: false,
    });
    try {
      const ungated = await controller.createEnvironment({ sources: gatedSources });
      const change = await ungated.files.write('.env', Buffer.from('SECRET=1'));
      expect(change.hooks).toEqual([]);
      const read = await ungated.files.read('.env');
      expect(read.type === 'file' && read.data.toString()).toBe('SECRET=1');
      // The model's own write tool still meets the gate.
      const model = await ungated.call({
        name: 'write_to_file',
        args: { TargetFile: '/workspace/b.env', CodeContent: 'x' },
      });
      expect(model.blocked).toBe(true);
      expect(ungated.records()).toContainEqual(
        expect.objectContaining({ kind: 'file', path: '/workspace/.env', gated: false }),
      );
    } finally {
      await controller.close();
    }
  });
});
