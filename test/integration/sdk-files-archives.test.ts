// Archives uploaded with `extract` (docs/environments.md, "Files through the SDKs"), against a real
// `hookbox serve` and sandbox: the JavaScript SDK unpacks a gzip-compressed tar and a zip (read by
// the sandbox agent) byte-exact; an archive whose member escapes its folder (`../`, an absolute
// path, a symlink out), one that is not what it claims, or one that unpacks past the limit is a 4xx
// naming `body`, and nothing is written or changed; an upload a gate denies is a 403.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import { fetchJson, startTestServer, type EnvironmentBody } from './api-helpers.js';
import { jsClient } from './sdk-helpers.js';

const KEY = 'sdk-archives-key';
let server: RunningServer;
let environmentId: string;

beforeAll(async () => {
  server = await startTestServer([KEY]);
  const made = await fetchJson(
    server,
    'POST',
    '/v1beta/environments',
    {
      sources: [{ type: 'inline', target: 'workspace/safe/keep.txt', content: 'kept\n' }, ...GATE],
    },
    { 'x-goog-api-key': KEY },
  );
  environmentId = (made.json as EnvironmentBody).id;
});
afterAll(async () => {
  await server?.close();
});

/** A gate that denies the write of any file named `.env` (docs/environments.md, "Files and the gates"). */
const GATE = [
  {
    type: 'inline',
    target: '.agents/hooks.json',
    content: JSON.stringify({
      guard: {
        pre_tool_execution: [
          {
            matcher: 'write_to_file|write_file',
            hooks: [{ type: 'command', command: 'python3 /.agents/env-gate.py', timeout: 10 }],
          },
        ],
      },
    }),
  },
  {
    type: 'inline',
    target: '.agents/env-gate.py',
    content: [
      'import json, sys',
      'args = json.load(sys.stdin)["tool_call"]["args"]',
      'if (args.get("TargetFile") or args.get("path") or "").endswith(".env"):',
      '    print(json.dumps({"decision": "deny", "reason": "no .env files"}))',
    ].join('\n'),
  },
];

/** A zip made by Python's zipfile: files (base64 content), folders, and symlinks (Unix mode). */
async function zipOf(
  members: { name: string; data?: Buffer; dir?: boolean; symlinkTo?: string }[],
): Promise<Buffer> {
  const script = `
import base64, io, json, sys, zipfile
out = io.BytesIO()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
    for member in json.load(sys.stdin):
        info = zipfile.ZipInfo(member["name"])
        if member.get("symlink_to"):
            info.external_attr = 0o120777 << 16
            archive.writestr(info, member["symlink_to"])
        elif member.get("dir"):
            info.external_attr = (0o40755 << 16) | 0x10
            archive.writestr(info, b"")
        else:
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, base64.b64decode(member["data"]))
sys.stdout.write(base64.b64encode(out.getvalue()).decode())
`;
  const spec = members.map((member) => ({
    name: member.name,
    ...(member.data ? { data: member.data.toString('base64') } : {}),
    ...(member.dir ? { dir: true } : {}),
    ...(member.symlinkTo ? { symlink_to: member.symlinkTo } : {}),
  }));
  const { stdout } = await execa('python3', ['-c', script], { input: JSON.stringify(spec) });
  return Buffer.from(stdout, 'base64');
}

type TarHeader = Parameters<ReturnType<typeof pack>['entry']>[0];

async function tarOf(members: (TarHeader & { data?: Buffer })[]): Promise<Buffer> {
  const archive = pack();
  for (const { data, ...header } of members) archive.entry(header, data ?? '');
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Google's resumable upload by hand, in one chunk: the finalizing answer. */
async function upload(path: string, bytes: Buffer, query = 'extract=true'): Promise<Response> {
  const headers = { 'x-goog-api-key': KEY };
  const started = await fetch(
    `${server.url}/upload/v1beta/environments/${environmentId}/files/${path}?${query}`,
    {
      method: 'POST',
      headers: {
        ...headers,
        'x-goog-upload-protocol': 'resumable',
        'x-goog-upload-command': 'start',
        'x-goog-upload-header-content-length': String(bytes.length),
      },
    },
  );
  expect(started.status, await started.clone().text()).toBe(200);
  return fetch(started.headers.get('x-goog-upload-url')!, {
    method: 'POST',
    headers: {
      ...headers,
      'x-goog-upload-command': 'upload, finalize',
      'x-goog-upload-offset': '0',
    },
    body: bytes as BodyInit,
  });
}

/** Every path under /workspace, and the bytes of keep.txt. */
async function workspaceState(): Promise<{ paths: string[]; keep: string }> {
  const listed = await fetchJson(
    server,
    'GET',
    `/v1beta/environments/${environmentId}/files?recursive=true&page_size=1000`,
    undefined,
    { 'x-goog-api-key': KEY },
  );
  const keep = await fetchJson(
    server,
    'GET',
    `/v1beta/environments/${environmentId}/files/safe/keep.txt`,
    undefined,
    { 'x-goog-api-key': KEY },
  );
  const { files } = listed.json as { files: { path: string }[] };
  return { paths: files.map((file) => file.path), keep: keep.text };
}

describe('extract through the JavaScript SDK', () => {
  it('unpacks a gzip-compressed tar and a zip, byte-exact, with folders and times listed', async () => {
    const ai = jsClient(server, KEY);
    const binary = randomBytes(200_000);
    await ai.environments.files.upload({
      environment: environmentId,
      path: 'fromtgz',
      file: gzipSync(
        await tarOf([
          { name: 'bin/data.bin', data: binary },
          { name: 'notes.txt', data: Buffer.from('tgz\n') },
        ]),
      ),
      extract: true,
    });
    await ai.environments.files.upload({
      environment: environmentId,
      path: 'fromzip',
      file: await zipOf([
        { name: 'empty/', dir: true },
        { name: 'deep/er/data.bin', data: binary },
        { name: 'hello.txt', data: Buffer.from('zip\n') },
      ]),
      extract: true,
    });
    for (const path of ['fromtgz/bin/data.bin', 'fromzip/deep/er/data.bin']) {
      const back = await ai.environments.files.download({ environment: environmentId, path });
      expect(Buffer.from(back).equals(binary), path).toBe(true);
    }
    const listed = await ai.environments.files.list({
      environment: environmentId,
      path: 'fromzip',
      recursive: true,
    });
    expect(listed.files!.map((file) => [file.path, file.type])).toEqual([
      ['workspace/fromzip/deep', 'directory'],
      ['workspace/fromzip/deep/er', 'directory'],
      ['workspace/fromzip/deep/er/data.bin', 'file'],
      ['workspace/fromzip/empty', 'directory'],
      ['workspace/fromzip/hello.txt', 'file'],
    ]);
    const hello = listed.files!.find((file) => file.name === 'hello.txt')!;
    expect(hello).toMatchObject({ size_bytes: '4', mime_type: 'text/plain' });
    expect(new Date(hello.modified!).toISOString()).toBe(hello.modified);
    expect(Math.abs(Date.parse(hello.created!) - Date.now())).toBeLessThan(10 * 60_000);
  });
});

describe('archives that escape their folder, or are not what they claim', () => {
  const cases: [string, () => Promise<Buffer>, number, RegExp][] = [
    [
      'a zip member with ../',
      () => zipOf([{ name: '../evil.txt', data: Buffer.from('x') }]),
      400,
      /\.\./,
    ],
    [
      'a zip member with an absolute path',
      () => zipOf([{ name: '/etc/evil', data: Buffer.from('x') }]),
      400,
      /evil/,
    ],
    [
      'a zip symlink pointing out',
      () =>
        zipOf([
          { name: 'ok.txt', data: Buffer.from('fine') },
          { name: 'link', symlinkTo: '/etc/passwd' },
        ]),
      400,
      /symlink/,
    ],
    [
      'a tar symlink pointing out',
      () => tarOf([{ name: 'out', type: 'symlink', linkname: '../../../etc' }]),
      400,
      /symlink/,
    ],
    [
      'a tar member with an absolute path',
      () => tarOf([{ name: '/abs.txt', data: Buffer.from('x') }]),
      400,
      /abs/,
    ],
    [
      'a zip that is not one',
      async () => Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(64)]),
      400,
      /zip/,
    ],
    [
      'a gzip that is not one',
      async () => Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6]),
      400,
      /gzip/,
    ],
    [
      'a zip that unpacks past 16 MiB',
      () => zipOf([{ name: 'zeros.bin', data: Buffer.alloc(17 * 1024 * 1024) }]),
      413,
      /limit/,
    ],
  ];

  it.each(cases)(
    '%s is refused naming body; nothing is written',
    async (_name, make, status, message) => {
      const before = await workspaceState();
      // With overwrite, a good member would replace keep.txt if anything were written.
      const bytes = await make();
      const answer = await upload('safe', bytes, 'extract=true&overwrite=true');
      const body: unknown = await answer.json();
      expect(answer.status, JSON.stringify(body)).toBe(status);
      // The upload is over (the Python SDK sends a chunk again until an answer says so).
      expect(answer.headers.get('x-goog-upload-status')).toBe('final');
      expect(apiErrorOf(body).field).toBe('body');
      expect(apiErrorOf(body).message).toMatch(message);
      expect(await workspaceState()).toEqual(before);
    },
  );

  it('a zip with a good member beside a bad one writes neither', async () => {
    const before = await workspaceState();
    const zip = await zipOf([
      { name: 'keep.txt', data: Buffer.from('replaced') },
      { name: 'sub/../../out.txt', data: Buffer.from('x') },
    ]);
    const answer = await upload('safe', zip, 'extract=true&overwrite=true');
    expect(answer.status).toBe(400);
    expect(apiErrorOf(await answer.json()).field).toBe('body');
    expect(await workspaceState()).toEqual(before);
    expect(before.keep).toBe('kept\n');
  });
});

describe('uploads meet the gates', () => {
  it('an upload, or an archive, holding what a gate denies is a 403 and writes nothing', async () => {
    const ai = jsClient(server, KEY);
    const before = await workspaceState();
    const single = await ai.environments.files
      .upload({ environment: environmentId, path: 'config/.env', file: Buffer.from('SECRET=1') })
      .then(
        () => undefined,
        (error: { status?: number; message?: string }) => error,
      );
    expect(single?.status).toBe(403);
    expect(single?.message).toContain('no .env files');
    const zipped = await zipOf([
      { name: 'fine.txt', data: Buffer.from('fine') },
      { name: 'deploy/.env', data: Buffer.from('SECRET=1') },
    ]);
    const archive = await upload('config', zipped);
    expect(archive.status).toBe(403);
    expect(apiErrorOf(await archive.json()).message).toContain('no .env files');
    expect(await workspaceState()).toEqual(before);
  });
});
