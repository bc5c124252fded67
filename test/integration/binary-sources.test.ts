// Binary files reach the sandbox byte for byte: inline sources with "encoding": "base64" (library
// and API) and non-UTF-8 files in `hookbox call --sources` folders. Bytes are never altered.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fetchJson, useServer, type OpenApiDocument } from './api-helpers.js';
import { cli, type PrintedOutcome } from './cli-helpers.js';
import { bash, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

// Every byte value, twice, and bytes that are not UTF-8 (a lone continuation, an overlong form).
const BYTES = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from([0x80, 0xc0, 0xaf, 0xff, 0xfe, 0x00, 0x0d, 0x0a]),
  Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i)),
]);
const SHA = createHash('sha256').update(BYTES).digest('hex');
const controller = useController();
const server = useServer();

describe('binary sources', () => {
  it('library: a base64 inline source is written byte-exact; a #! one is executable', async () => {
    const script = Buffer.from('#!/bin/sh\necho ran-from-base64\n');
    await withEnvironment(
      controller,
      {
        sources: [
          {
            type: 'inline',
            target: 'workspace/blob.bin',
            content: BYTES.toString('base64'),
            encoding: 'base64',
          },
          {
            type: 'inline',
            target: 'workspace/run.sh',
            content: script.toString('base64'),
            encoding: 'base64',
          },
        ],
      },
      async (environment) => {
        const sum = await environment.call(
          bash('sha256sum blob.bin; stat -c %s blob.bin; ./run.sh'),
        );
        expect(execResultOf(sum).stdout).toContain(SHA);
        expect(execResultOf(sum).stdout).toContain(`\n${BYTES.length}\n`);
        expect(execResultOf(sum).stdout).toContain('ran-from-base64');
      },
    );
  });

  it('library: invalid base64 is refused before any container is made', async () => {
    await expect(
      (await controller()).createEnvironment({
        sources: [
          { type: 'inline', target: 'workspace/x.bin', content: 'not base64!', encoding: 'base64' },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'invalid_sources',
      details: { field: 'sources[0].content' },
    });
  });

  it('API: "encoding": "base64" on an inline source; the OpenAPI document lists it', async () => {
    const answer = await fetchJson(server(), 'POST', '/v1beta/interactions', {
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: 'sha256sum blob.bin' } }],
      environment: {
        type: 'remote',
        sources: [
          {
            type: 'inline',
            target: 'workspace/blob.bin',
            content: BYTES.toString('base64'),
            encoding: 'base64',
          },
        ],
      },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).toContain(SHA);
    const document = await fetchJson(server(), 'GET', '/openapi.json');
    expect(
      JSON.stringify((document.json as OpenApiDocument).components.schemas.InlineSource),
    ).toContain('base64');
  });

  it('CLI: a binary file in --sources arrives byte-exact, text files stay text', async () => {
    const only = mkdtempSync(join(tmpdir(), 'hookbox-binary-'));
    mkdirSync(join(only, 'workspace'));
    writeFileSync(join(only, 'workspace', 'blob.bin'), BYTES);
    writeFileSync(join(only, 'workspace', 'note.txt'), 'héllo\n');
    const ok = await cli(
      'call',
      '--sources',
      only,
      '--tool',
      'code_execution',
      '--args',
      JSON.stringify({ code: 'sha256sum blob.bin; cat note.txt' }),
      '--json',
    );
    expect(ok.code, ok.stderr).toBe(0);
    const stdout = execResultOf(JSON.parse(ok.stdout) as PrintedOutcome).stdout;
    expect(stdout).toContain(SHA);
    expect(stdout).toContain('héllo');
  });
});
