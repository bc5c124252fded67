// The Gemini JavaScript SDK's environments.files, unchanged, against a real `hookbox serve`: a
// resumable upload in several chunks, byte-exact; a tar uploaded with extract; overwrite refused;
// a recursive listing a page at a time with folders typed `directory`; the download of the same
// bytes; the resumable protocol's own refusals (a chunk at the wrong offset loses nothing); another
// tenant's environment is a 404 (docs/environments.md, "Files through the SDKs").
import { randomBytes } from 'node:crypto';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import { fetchJson, startTestServer, type EnvironmentBody } from './api-helpers.js';
import { jsClient } from './sdk-helpers.js';

const KEY = 'sdk-files-key';
const OTHER = 'sdk-files-other-key';
let server: RunningServer;
let environmentId: string;

beforeAll(async () => {
  server = await startTestServer([KEY, OTHER]);
  const made = await fetchJson(
    server,
    'POST',
    '/v1beta/environments',
    {},
    { 'x-goog-api-key': KEY },
  );
  environmentId = (made.json as EnvironmentBody).id;
});
afterAll(async () => {
  await server?.close();
});

async function tarOf(files: Record<string, string>): Promise<Buffer> {
  const archive = pack();
  for (const [name, content] of Object.entries(files)) archive.entry({ name }, content);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('files through the JavaScript SDK', () => {
  it('uploads 9 MiB in two chunks, lists, downloads the same bytes, refuses an overwrite, extracts a tar', async () => {
    const ai = jsClient(server, KEY);
    const big = randomBytes(9 * 1024 * 1024);
    const uploaded = (await ai.environments.files.upload({
      environment: environmentId,
      path: 'data/big.bin',
      file: big,
    })) as { files: unknown[] };
    expect(uploaded.files).toEqual([
      expect.objectContaining({
        path: 'workspace/data/big.bin',
        type: 'file',
        size_bytes: String(big.length),
      }),
    ]);
    const back = await ai.environments.files.download({
      environment: environmentId,
      path: 'data/big.bin',
    });
    expect(Buffer.from(back).equals(big)).toBe(true);

    const again = await ai.environments.files
      .upload({ environment: environmentId, path: 'data/big.bin', file: Buffer.from('x') })
      .then(
        () => undefined,
        (error: { status?: number }) => error,
      );
    expect(again?.status).toBe(409);
    await ai.environments.files.upload({
      environment: environmentId,
      path: 'data/big.bin',
      file: Buffer.from('small now'),
      overwrite: true,
    });

    await ai.environments.files.upload({
      environment: environmentId,
      path: 'proj',
      file: await tarOf({ 'src/main.py': 'print(1)\n', 'README.md': '# hi\n' }),
      extract: true,
    });
    const seen: { path?: string; type?: string }[] = [];
    let token: string | undefined;
    do {
      const page = await ai.environments.files.list({
        environment: environmentId,
        path: 'proj',
        recursive: true,
        page_size: 2,
        ...(token ? { page_token: token } : {}),
      });
      expect(page.files!.length).toBeLessThanOrEqual(2);
      seen.push(...page.files!);
      token = page.next_page_token;
    } while (token);
    expect(seen.map((entry) => [entry.path, entry.type])).toEqual([
      ['workspace/proj/README.md', 'file'],
      ['workspace/proj/src', 'directory'],
      ['workspace/proj/src/main.py', 'file'],
    ]);
    const main = await ai.environments.files.download({
      environment: environmentId,
      path: 'proj/src/main.py',
    });
    expect(Buffer.from(main).toString()).toBe('print(1)\n');

    const stranger = jsClient(server, OTHER);
    const refused = await stranger.environments.files
      .list({ environment: environmentId, path: 'proj' })
      .then(
        () => undefined,
        (error: { status?: number }) => error,
      );
    expect(refused?.status).toBe(404);
    for (const attempt of [
      stranger.environments.files.download({ environment: environmentId, path: 'proj/README.md' }),
      stranger.environments.files.upload({
        environment: environmentId,
        path: 'proj/planted.txt',
        file: Buffer.from('x'),
      }),
    ])
      expect(
        (
          await attempt.then(
            () => undefined,
            (error: { status?: number }) => error,
          )
        )?.status,
      ).toBe(404);
  });
});

describe('the resumable protocol, by hand', () => {
  const post = (url: string, headers: Record<string, string>, body?: Uint8Array) =>
    fetch(url, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, ...headers },
      ...(body ? { body: body as BodyInit } : {}),
    });

  it('chunks at their offsets make the file; a chunk at the wrong offset is a 400 and loses nothing', async () => {
    const bytes = randomBytes(3000);
    const started = await post(
      `${server.url}/upload/v1beta/environments/${environmentId}/files/hand/made.bin`,
      {
        'x-goog-upload-protocol': 'resumable',
        'x-goog-upload-command': 'start',
        'x-goog-upload-header-content-length': String(bytes.length),
      },
    );
    expect(started.status).toBe(200);
    const url = started.headers.get('x-goog-upload-url')!;
    expect(url).toMatch(/\/upload\/v1beta\/sessions\//);
    const chunk = (offset: number, end: number, command = 'upload') =>
      post(
        url,
        { 'x-goog-upload-command': command, 'x-goog-upload-offset': String(offset) },
        bytes.subarray(offset, end),
      );
    expect((await chunk(0, 1000)).status).toBe(200);
    const skipped = await chunk(2000, 3000, 'upload, finalize');
    expect(skipped.status).toBe(400);
    // The upload goes on: the SDKs read this header to know it.
    expect(skipped.headers.get('x-goog-upload-status')).toBe('active');
    expect(apiErrorOf(await skipped.json()).field).toBe('x-goog-upload-offset');
    expect((await chunk(1000, 2000)).status).toBe(200);
    const done = await chunk(2000, 3000, 'upload, finalize');
    expect(done.status).toBe(200);
    const back = await fetch(
      `${server.url}/v1beta/environments/${environmentId}/files/hand/made.bin?alt=media`,
      {
        headers: { 'x-goog-api-key': KEY },
      },
    );
    expect(Buffer.from(await back.arrayBuffer()).equals(bytes)).toBe(true);

    // Another tenant cannot push to the session, nor start one in this environment.
    const other = await fetch(url, {
      method: 'POST',
      headers: {
        'x-goog-api-key': OTHER,
        'x-goog-upload-command': 'upload',
        'x-goog-upload-offset': '0',
      },
      body: new Uint8Array([120]),
    });
    expect(other.status).toBe(404);
  });

  it('a tar whose entry escapes its folder is refused, and nothing is written', async () => {
    const evil = await tarOf({ '../escape.txt': 'x' });
    const started = await post(
      `${server.url}/upload/v1beta/environments/${environmentId}/files/safe?extract=true`,
      {
        'x-goog-upload-protocol': 'resumable',
        'x-goog-upload-command': 'start',
        'x-goog-upload-header-content-length': String(evil.length),
      },
    );
    const url = started.headers.get('x-goog-upload-url')!;
    const done = await post(
      url,
      { 'x-goog-upload-command': 'upload, finalize', 'x-goog-upload-offset': '0' },
      evil,
    );
    expect(done.status).toBe(400);
    expect(apiErrorOf(await done.json()).field).toBe('body');
    const listed = await fetchJson(
      server,
      'GET',
      `/v1beta/environments/${environmentId}/files?recursive=true`,
      undefined,
      {
        'x-goog-api-key': KEY,
      },
    );
    expect(JSON.stringify(listed.json)).not.toContain('escape');
  });

  it('bad starts name the header', async () => {
    const base = `${server.url}/upload/v1beta/environments/${environmentId}/files/x.bin`;
    for (const [headers, field] of [
      [
        { 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': '1' },
        'x-goog-upload-protocol',
      ],
      [
        { 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start' },
        'x-goog-upload-header-content-length',
      ],
    ] as const) {
      const answer = await post(base, headers);
      expect(answer.status).toBe(400);
      expect(apiErrorOf(await answer.json()).field).toBe(field);
    }
  });
});
