import { z } from 'zod';
import { join } from 'node:path';
import { packageRoot } from '../../paths.js';
import {
  answerEnvelope,
  OPERATIONS,
  outputEvent,
  PROTOCOL_VERSION,
  requestEnvelope,
  SANDBOX_PATHS,
} from './index.js';

/** Where the generated document is committed, and from where the image ships it to the agent. */
export function protocolSchemaPath(): string {
  return join(packageRoot(), 'sandbox-image', 'agent', 'protocol.schema.json');
}

function schemaOf(type: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const schema = z.toJSONSchema(type, { target: 'draft-2020-12', io, unrepresentable: 'throw' });
  // One `$schema` for the document, not one per operation.
  delete (schema as { $schema?: unknown }).$schema;
  return schema;
}

/**
 * The protocol as one JSON document (docs/agent-protocol.md): its version, the sandbox's paths, and
 * each operation's request and answer as JSON Schema (draft 2020-12). The agent reads its version
 * and paths from it; the agent's own tests check its answers against it. Generated from the zod
 * schemas of this folder (`npm run protocol:schema`); a unit test fails when the committed file differs.
 */
export function protocolDocument(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'hookbox sandbox agent protocol',
    description:
      "Generated from src/sandbox/protocol/ by `npm run protocol:schema`; do not edit. One JSON object per line each way on the agent container's attached stdio (docs/agent-protocol.md).",
    protocol_version: PROTOCOL_VERSION,
    paths: SANDBOX_PATHS,
    envelope: {
      request: schemaOf(requestEnvelope, 'input'),
      answer: schemaOf(answerEnvelope, 'output'),
      output_event: schemaOf(outputEvent, 'output'),
    },
    operations: Object.fromEntries(
      Object.entries(OPERATIONS).map(([op, definition]) => [
        op,
        {
          description: definition.description,
          request: schemaOf(definition.request, 'input'),
          answer: schemaOf(definition.answer, 'output'),
        },
      ]),
    ),
  };
}

/** The document as the committed file holds it: two-space JSON and a final line break. */
export function protocolDocumentText(): string {
  return JSON.stringify(protocolDocument(), null, 2) + '\n';
}
