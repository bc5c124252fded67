import { CREDENTIAL_LIMITS, VALUE_MARK } from '../credentials/credentials.js';

const REF = (id: string) => `#/components/schemas/${id}`;
const json = (id: string) => ({ 'application/json': { schema: { $ref: REF(id) } } });

/** The credentials API's schemas (docs/credentials.md). */
export const CREDENTIALS_SCHEMAS: Record<string, unknown> = {
  CredentialRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    description: 'A credential to store: `value`, `headers` or both. Stored sealed (AES-256-GCM).',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: CREDENTIAL_LIMITS.nameChars },
      value: {
        type: 'string',
        description: `The secret (at most ${CREDENTIAL_LIMITS.valueBytes} bytes, no CR/LF/NUL): what an environment-variable placeholder resolves to`,
      },
      headers: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: `Header templates the egress proxy adds to \`http\` hook requests of an allowlist entry that references the credential; \`${VALUE_MARK}\` is replaced by \`value\``,
      },
    },
  },
  Credential: {
    type: 'object',
    required: ['id', 'object', 'name', 'created', 'header_names', 'has_value', 'tenant'],
    description: 'A stored credential as every answer shows it: never its value or header values',
    properties: {
      id: { type: 'string', description: '`cred_…`' },
      object: { const: 'credential' },
      name: { type: 'string' },
      created: { type: 'string', format: 'date-time' },
      header_names: { type: 'array', items: { type: 'string' } },
      has_value: { type: 'boolean' },
      tenant: { type: ['string', 'null'] },
    },
  },
  CredentialList: {
    type: 'object',
    required: ['credentials'],
    properties: { credentials: { type: 'array', items: { $ref: REF('Credential') } } },
  },
};

const errors = {
  '401': { description: 'Missing or wrong API key', content: json('Error') },
  '404': {
    description: "Unknown credential, or another tenant's (alike)",
    content: json('Error'),
  },
  '503': {
    description:
      'HOOKBOX_SECRET_KEY is not set, too short, or not the key the credential was stored with (`credentials_unavailable`)',
    content: json('Error'),
  },
};

const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** The credentials API's paths, for the OpenAPI document. */
export const CREDENTIALS_PATHS: Record<string, unknown> = {
  '/v1beta/credentials': {
    post: {
      summary: 'Store a credential (sealed with HOOKBOX_SECRET_KEY); the answer never holds it',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              oneOf: [
                { $ref: REF('CredentialRequest') },
                {
                  type: 'object',
                  required: ['id', 'type'],
                  description:
                    "The Gemini SDKs' credential: `environment_variable` (value, injection_location, trusted_domains), `bearer_token` (token, header_name, prefix) or `oauth2` (client_id, client_secret, refresh_token, token_url, scopes); docs/credentials.md",
                  properties: {
                    id: { type: 'string', pattern: '^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
                    type: { enum: ['environment_variable', 'bearer_token', 'oauth2'] },
                  },
                },
              ],
            },
          },
        },
      },
      responses: {
        '201': { description: 'Stored', content: json('Credential') },
        '400': { description: 'Bad input, naming the field and the rule', content: json('Error') },
        ...errors,
      },
    },
    get: {
      summary: "The caller's credentials (an admin's: every tenant's), without values",
      responses: { '200': { description: 'The list', content: json('CredentialList') }, ...errors },
    },
  },
  '/v1beta/credentials/{id}': {
    get: {
      summary: 'One credential, without its value',
      parameters: [id],
      responses: { '200': { description: 'Found', content: json('Credential') }, ...errors },
    },
    patch: {
      summary:
        "Update a credential of the Gemini SDKs' types: the fields `update_mask` names (docs/credentials.md)",
      parameters: [
        id,
        { name: 'update_mask', in: 'query', required: false, schema: { type: 'string' } },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      responses: {
        '200': { description: 'Updated', content: json('Credential') },
        '400': { description: 'Bad input, naming the field and the rule', content: json('Error') },
        ...errors,
      },
    },
    delete: {
      summary:
        'Delete a credential; environments already made with it keep it until they are deleted',
      parameters: [id],
      responses: { '200': { description: 'Removed: `{}`' }, ...errors },
    },
  },
};
