import { FILES_API_LIMITS } from '../controller/workspace-path.js';

const REF = (id: string) => `#/components/schemas/${id}`;
const json = (id: string) => ({ 'application/json': { schema: { $ref: REF(id) } } });

/** The files API's schemas (docs/environments.md, "Files"). */
export const FILES_SCHEMAS: Record<string, unknown> = {
  FolderListing: {
    type: 'object',
    required: ['path', 'type', 'entries'],
    properties: {
      path: { type: 'string', description: 'absolute, e.g. /workspace/src' },
      type: { const: 'directory' },
      entries: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'type', 'size'],
          properties: {
            name: { type: 'string' },
            type: { enum: ['file', 'directory', 'symlink', 'other'] },
            size: { type: 'integer' },
          },
        },
      },
    },
  },
  NetworkState: {
    type: 'object',
    required: ['environment_id', 'network'],
    properties: {
      environment_id: { type: 'string' },
      network: {
        oneOf: [
          { const: 'disabled' },
          {
            type: 'object',
            required: ['allowlist'],
            properties: {
              allowlist: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['domain'],
                  properties: { domain: { type: 'string' } },
                },
              },
            },
          },
        ],
      },
    },
  },
  FileChange: {
    type: 'object',
    required: ['call_id', 'path', 'files', 'bytes', 'hooks'],
    properties: {
      call_id: { type: 'string', description: 'the id of the change in the audit log' },
      path: { type: 'string', description: 'relative to /workspace' },
      files: { type: 'integer', description: 'files written (0 for a delete)' },
      bytes: { type: 'integer' },
      hooks: { type: 'array', items: { $ref: REF('HookOutcome') } },
    },
  },
};

const errors = {
  '400': {
    description: 'Bad path (`..`, absolute, a symlink out of /workspace) or query',
    content: json('Error'),
  },
  '401': { description: 'Missing or wrong API key', content: json('Error') },
  '403': { description: 'A gate blocked the change', content: json('Error') },
  '404': { description: 'Unknown environment or file', content: json('Error') },
  '409': { description: 'The file exists and `overwrite` is not true', content: json('Error') },
  '413': {
    description: `Over ${FILES_API_LIMITS.maxFileBytes} bytes`,
    content: json('Error'),
  },
  '5XX': { description: 'hookbox or the engine failed', content: json('Error') },
};

const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const path = {
  name: 'path',
  in: 'path',
  required: true,
  description:
    'relative to /workspace; `/` separates folders (percent-encode other reserved bytes)',
  schema: { type: 'string' },
};
const overwrite = {
  name: 'overwrite',
  in: 'query',
  schema: { enum: ['true', 'false'], default: 'false' },
};
const format = {
  name: 'format',
  in: 'query',
  description:
    '`tar`: the folder as a tar archive (GET) or an archive (tar, gzip-compressed tar or zip) to unpack into it (PUT)',
  schema: { const: 'tar' },
};

const read = {
  summary: 'A file (bytes), a folder (JSON listing), or with format=tar a folder as a tar archive',
  responses: {
    '200': {
      description: 'The bytes, the listing or the archive',
      content: {
        'application/octet-stream': {
          schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        },
        'application/x-tar': { schema: { type: 'string', contentMediaType: 'application/x-tar' } },
        ...json('FolderListing'),
      },
    },
    ...errors,
  },
};

const write = {
  summary:
    'Write a file (body = bytes), or with format=tar unpack an archive (tar, tar.gz or zip) into the folder',
  requestBody: {
    required: false,
    content: {
      '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
    },
  },
  responses: { '200': { description: 'Written', content: json('FileChange') }, ...errors },
};

const networkAnswer = {
  '200': {
    description:
      '`{environment_id, network}`: `"disabled"` or `{allowlist: [{domain}]}` (transform headers are never shown)',
    content: { 'application/json': { schema: { $ref: REF('NetworkState') } } },
  },
  ...errors,
};

/** The files API's and network modes' paths, for the OpenAPI document. */
export const FILES_PATHS: Record<string, unknown> = {
  '/v1beta/environments/{id}/network': {
    get: { summary: "The environment's network rules", parameters: [id], responses: networkAnswer },
    patch: {
      summary:
        'Replace the network rules of a live environment; the next call gets them (409 for one made without a network)',
      parameters: [id],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              description:
                'What `environment.network` takes: `"disabled"` or `{"allowlist": [{domain, transform? or credential?}]}`',
            },
          },
        },
      },
      responses: networkAnswer,
    },
  },
  '/v1beta/environments/{id}/files': {
    get: {
      ...read,
      summary: 'The /workspace folder: listing, or with format=tar an archive',
      parameters: [id, format],
    },
    put: {
      ...write,
      summary: 'Unpack a tar archive (format=tar) into /workspace',
      parameters: [id, overwrite, format],
    },
  },
  '/v1beta/environments/{id}/files/{path}': {
    get: { ...read, parameters: [id, path, format] },
    put: { ...write, parameters: [id, path, overwrite, format] },
    delete: {
      summary: 'Delete a file or an empty folder',
      parameters: [id, path],
      responses: { '200': { description: 'Deleted', content: json('FileChange') }, ...errors },
    },
  },
};
