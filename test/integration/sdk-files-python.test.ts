// The Gemini Python SDK's environments.files, unchanged, against a real `hookbox serve`: an upload
// of 9 MiB in the SDK's own chunks (8 MiB), byte-exact; overwrite refused then allowed; a tar and a
// zip unpacked with extract; a recursive listing a page at a time, folders typed `directory`, with
// RFC 3339 times; another key gets 404 (docs/environments.md, "Files through the SDKs").
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer } from '../../src/server/index.js';
import { fetchJson, startTestServer, type EnvironmentBody } from './api-helpers.js';
import { runPython } from './sdk-helpers.js';

const KEY = 'sdk-files-py-key';
const OTHER = 'sdk-files-py-other-key';
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

const SCRIPT = `
import hashlib, io, tarfile, zipfile
env = os.environ["ENV_ID"]
big = open(os.environ["BIG"], "rb").read()
up = client.environments.files.upload(environment=env, path="data/big.bin", file=big)
back = client.environments.files.download(environment=env, path="workspace/data/big.bin")
try:
    client.environments.files.upload(environment=env, path="data/big.bin", file=b"x")
    refused = None
except Exception as error:
    refused = getattr(error, "status_code", None) or getattr(error, "code", None)
client.environments.files.upload(environment=env, path="data/big.bin", file=b"small", overwrite=True)
small = client.environments.files.download(environment=env, path="data/big.bin")

tar_bytes = io.BytesIO()
with tarfile.open(fileobj=tar_bytes, mode="w:gz") as tar:
    for name, content in [("src/app.py", b"print('tar')\\n"), ("README.md", b"# tar\\n")]:
        info = tarfile.TarInfo(name)
        info.size = len(content)
        tar.addfile(info, io.BytesIO(content))
client.environments.files.upload(environment=env, path="proj", file=tar_bytes.getvalue(), extract=True)
zip_bytes = io.BytesIO()
with zipfile.ZipFile(zip_bytes, "w", zipfile.ZIP_DEFLATED) as archive:
    archive.writestr("lib/util.py", "def util(): return 'zip'\\n")
    archive.writestr("lib/blob.bin", bytes(range(256)) * 64)
client.environments.files.upload(environment=env, path="proj", file=zip_bytes.getvalue(), extract=True)
blob = client.environments.files.download(environment=env, path="proj/lib/blob.bin")

entries, pages, token = [], 0, None
while True:
    page = client.environments.files.list(environment=env, path="workspace/proj", recursive=True, page_size=2, page_token=token)
    pages += 1
    entries += [{"path": f.path, "type": f.type, "created": f.created.isoformat(), "modified": f.modified.isoformat()} for f in page.files]
    token = page.next_page_token
    if not token:
        break
print(json.dumps({
    "uploaded": [f.size_bytes for f in up.files],
    "same": hashlib.sha256(back).hexdigest(),
    "refused": refused,
    "small": small.decode(),
    "blob": hashlib.sha256(blob).hexdigest(),
    "pages": pages,
    "entries": entries,
}))
`;

describe('files through the Python SDK', () => {
  it('uploads in chunks byte-exact, refuses an overwrite, extracts a tar.gz and a zip, lists a page at a time', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hookbox-sdk-files-py-'));
    const big = randomBytes(9 * 1024 * 1024);
    writeFileSync(join(folder, 'big.bin'), big);
    const started = Date.now();
    const answer = await runPython<{
      uploaded: number[];
      same: string;
      refused: number;
      small: string;
      blob: string;
      pages: number;
      entries: { path: string; type: string; created: string; modified: string }[];
    }>(server, KEY, SCRIPT, {
      ENV_ID: environmentId,
      BIG: join(folder, 'big.bin'),
    });
    // The Python SDK reads size_bytes (a string on the wire, as Google's API sends it) as a number.
    expect(answer.uploaded).toEqual([big.length]);
    expect(answer.same).toBe(createHash('sha256').update(big).digest('hex'));
    expect(answer.refused).toBe(409);
    expect(answer.small).toBe('small');
    const blob = Buffer.concat(
      Array.from({ length: 64 }, () => Buffer.from([...Array(256).keys()])),
    );
    expect(answer.blob).toBe(createHash('sha256').update(blob).digest('hex'));
    expect(answer.pages).toBe(3);
    expect(answer.entries.map((entry) => [entry.path, entry.type])).toEqual([
      ['workspace/proj/README.md', 'file'],
      ['workspace/proj/lib', 'directory'],
      ['workspace/proj/lib/blob.bin', 'file'],
      ['workspace/proj/lib/util.py', 'file'],
      ['workspace/proj/src', 'directory'],
      ['workspace/proj/src/app.py', 'file'],
    ]);
    for (const entry of answer.entries) {
      for (const time of [entry.created, entry.modified]) {
        expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
        expect(Math.abs(Date.parse(time) - started)).toBeLessThan(10 * 60_000);
      }
    }

    const stranger = await runPython<unknown>(
      server,
      OTHER,
      `
try:
    client.environments.files.list(environment=os.environ["ENV_ID"], path="proj")
    print(json.dumps(None))
except Exception as error:
    print(json.dumps(getattr(error, "status_code", None) or getattr(error, "code", None)))
`,
      { ENV_ID: environmentId },
    );
    expect(stranger).toBe(404);
  });
});
