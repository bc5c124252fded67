/**
 * The protocol's JSON Schema is generated from the zod source and committed
 * (sandbox-image/agent/protocol.schema.json, docs/agent-protocol.md): this test regenerates it and
 * fails while the committed file differs, so CI catches a schema change without its document.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  protocolDocument,
  protocolDocumentText,
  protocolSchemaPath,
} from '../../../src/sandbox/protocol/json-schema.js';
import {
  OPERATIONS,
  PROTOCOL_VERSION,
  SANDBOX_PATHS,
} from '../../../src/sandbox/protocol/index.js';

describe('the agent protocol document', () => {
  it('is committed exactly as the zod schemas generate it (npm run protocol:schema)', () => {
    const committed = readFileSync(protocolSchemaPath(), 'utf8');
    expect(
      committed === protocolDocumentText(),
      'sandbox-image/agent/protocol.schema.json is out of date: run `npm run protocol:schema` and commit it',
    ).toBe(true);
  });

  it('holds the version, the paths and a request and an answer schema for every operation', () => {
    const document = protocolDocument() as {
      protocol_version: number;
      paths: Record<string, string>;
      operations: Record<string, { request: { type?: string }; answer: object }>;
    };
    expect(document.protocol_version).toBe(PROTOCOL_VERSION);
    expect(document.paths).toEqual(SANDBOX_PATHS);
    expect(Object.keys(document.operations).sort()).toEqual(Object.keys(OPERATIONS).sort());
    // A request is an object whose unknown keys are refused: a misspelt field is an error.
    expect(document.operations.run_code!.request).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: expect.arrayContaining([
        'code',
        'language',
        'timeout_ms',
        'output_cap_bytes',
      ]) as unknown[],
    });
  });
});
