import { z } from 'zod';
import {
  environmentResourceListSchema,
  environmentResourceSchema,
  errorBodySchema,
  hookOutcomeSchema,
  inlineSourceSchema,
  inputItemSchema,
  interactionEventSchema,
  interactionRequestSchema,
  interactionSchema,
  stepSchema,
} from '../interactions/schema.js';
import { CREDENTIALS_PATHS, CREDENTIALS_SCHEMAS } from './openapi-credentials.js';
import { FILES_PATHS, FILES_SCHEMAS } from './openapi-files.js';
import { SNAPSHOT_PATHS } from './openapi-snapshots.js';
import {
  forkAnswerSchema,
  snapshotInfoSchema,
  snapshotListSchema,
} from '../snapshots/snapshot-schema.js';
import { MCP_PATHS, MCP_SCHEMAS } from './openapi-mcp.js';

const REF = (id: string) => `#/components/schemas/${id}`;

function componentsOf(
  entries: Record<string, z.ZodType>,
  io: 'input' | 'output',
): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(entries)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { uri: REF, io, unrepresentable: 'any' });
  const out: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const rest: Record<string, unknown> = { ...schema };
    delete rest.$id;
    delete rest.$schema;
    out[id] = rest;
  }
  return out;
}

const json = (id: string) => ({ 'application/json': { schema: { $ref: REF(id) } } });

const errors = {
  '400': { description: 'Bad request: the message names the field', content: json('Error') },
  '401': { description: 'Missing or wrong API key', content: json('Error') },
  '403': {
    description: 'A Host header this server does not answer (DNS-rebinding defence)',
    content: json('Error'),
  },
  '404': {
    description: "Unknown id, or another tenant's (the same answer)",
    content: json('Error'),
  },
  '413': { description: 'Body over the size limit', content: json('Error') },
  '429': {
    description: 'Past a quota (`details.quota`); the Retry-After header says when to try again',
    content: json('Error'),
  },
  '5XX': { description: 'hookbox or the engine failed', content: json('Error') },
};

/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the same zod schemas that validate
 * requests (so it cannot drift from what the server accepts).
 */
export function openApiDocument(options: {
  version: string;
  bodyLimit: number;
}): Record<string, unknown> {
  const schemas = {
    ...componentsOf(
      {
        InteractionRequest: interactionRequestSchema,
        InputItem: inputItemSchema,
        InlineSource: inlineSourceSchema,
      },
      'input',
    ),
    ...componentsOf(
      {
        Interaction: interactionSchema,
        Step: stepSchema,
        HookOutcome: hookOutcomeSchema,
        InteractionEvent: interactionEventSchema,
        Environment: environmentResourceSchema,
        EnvironmentList: environmentResourceListSchema,
        Error: errorBodySchema,
        Snapshot: snapshotInfoSchema,
        SnapshotList: snapshotListSchema,
        ForkAnswer: forkAnswerSchema,
      },
      'output',
    ),
    ...FILES_SCHEMAS,
    ...CREDENTIALS_SCHEMAS,
    ...MCP_SCHEMAS,
  };
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  return {
    openapi: '3.1.0',
    info: {
      title: 'hookbox',
      version: options.version,
      description:
        'Sandboxed environments for AI agents whose hooks gate every tool call; shaped like the ' +
        `Gemini Interactions API. Request bodies are limited to ${options.bodyLimit} bytes.`,
    },
    security: [{ apiKey: [] }, { bearer: [] }],
    paths: {
      '/v1beta/interactions': {
        post: {
          summary: 'Run an interaction',
          description:
            'With `background: true`, answered at once (`in_progress`); with `stream: true`, the events of docs/gemini-sdks.md, "Streaming".',
          requestBody: { required: true, content: json('InteractionRequest') },
          responses: {
            '200': {
              description:
                'The Interaction; with `stream: true`, server-sent events (`interaction.created`, `interaction.status_update`, `step.start`/`step.delta`/`step.stop`, `interaction.completed`, `error`) whose data are InteractionEvent objects',
              content: {
                ...json('Interaction'),
                'text/event-stream': { schema: { $ref: REF('InteractionEvent') } },
              },
            },
            ...errors,
          },
        },
      },
      '/v1beta/interactions/{id}': {
        get: {
          summary: 'An interaction again; with `stream=true`, its events',
          parameters: [
            id,
            { name: 'stream', in: 'query', required: false, schema: { type: 'boolean' } },
            {
              name: 'last_event_id',
              in: 'query',
              required: false,
              description: 'With `stream=true`: the events after this one.',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': {
              description: 'The Interaction, or (stream=true) its events',
              content: {
                ...json('Interaction'),
                'text/event-stream': { schema: { $ref: REF('InteractionEvent') } },
              },
            },
            ...errors,
          },
        },
        delete: {
          summary: 'Forget an interaction (a running one is cancelled first)',
          parameters: [id],
          responses: { '200': { description: 'Removed: `{}`' }, ...errors },
        },
      },
      '/v1beta/interactions/{id}/cancel': {
        post: {
          summary: 'Stop a running interaction: the running call is killed, it ends `cancelled`',
          parameters: [id],
          responses: {
            '200': { description: 'The Interaction, cancelled', content: json('Interaction') },
            ...errors,
          },
        },
      },
      '/v1beta/environments': {
        post: {
          summary:
            'Make an environment: `sources` (inline, with `encoding: "base64"` for bytes; `repository`), `network`, `env`; or `from_environment` alone, a fork',
          requestBody: {
            required: false,
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          responses: {
            '200': { description: 'The environment', content: json('Environment') },
            ...errors,
          },
        },
        get: {
          summary: 'The live environments, a page at a time (`page_size`, `page_token`)',
          responses: {
            '200': { description: 'Environments', content: json('EnvironmentList') },
            ...errors,
          },
        },
      },
      '/v1beta/environments/{id}': {
        get: {
          summary: 'An environment',
          parameters: [id],
          responses: {
            '200': { description: 'The environment', content: json('Environment') },
            ...errors,
          },
        },
        delete: {
          summary: 'Remove an environment (container and volumes)',
          parameters: [id],
          responses: { '200': { description: 'Removed: `{}`' }, ...errors },
        },
      },
      ...FILES_PATHS,
      ...SNAPSHOT_PATHS,
      ...CREDENTIALS_PATHS,
      ...MCP_PATHS,
      '/healthz': {
        get: {
          summary: 'Liveness (no key needed)',
          security: [],
          responses: { '200': { description: '`{"status": "ok", ...}`' } },
        },
      },
      '/openapi.json': {
        get: {
          summary: 'This document (no key needed)',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1' } },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}
