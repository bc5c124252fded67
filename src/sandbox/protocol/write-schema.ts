/**
 * `npm run protocol:schema`: writes sandbox-image/agent/protocol.schema.json from the zod schemas
 * of this folder (docs/agent-protocol.md). Commit the result: the image ships it to the agent, and
 * a unit test fails while the committed file and the schemas differ.
 */
import { writeFileSync } from 'node:fs';
import { protocolDocumentText, protocolSchemaPath } from './json-schema.js';

writeFileSync(protocolSchemaPath(), protocolDocumentText());
console.log(`wrote ${protocolSchemaPath()}`);
