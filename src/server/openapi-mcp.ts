// The OpenAPI document's agents, MCP, MCP-approval and resumable-upload endpoints (docs/agents.md;
// docs/mcp.md; docs/environments.md, "Files through the SDKs"). MCP's own messages are JSON-RPC,
// described by the MCP specification rather than here.
import { z } from 'zod';
import { agentSchema } from '../interactions/agent-definition.js';
import { approvalAnswerSchema } from './routes-approvals.js';

const REF = (id: string) => `#/components/schemas/${id}`;
const json = (id: string) => ({ 'application/json': { schema: { $ref: REF(id) } } });
const errors = {
  '400': { description: 'Bad request: the message names the field', content: json('Error') },
  '401': { description: 'Missing or wrong API key', content: json('Error') },
  '404': {
    description: "Unknown id, or another tenant's (the same answer)",
    content: json('Error'),
  },
  '5XX': { description: 'hookbox or the engine failed', content: json('Error') },
};
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

function componentOf(schema: z.ZodType): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }),
  };
  delete out.$schema;
  return out;
}

export const MCP_SCHEMAS: Record<string, unknown> = {
  ApprovalAnswer: componentOf(approvalAnswerSchema),
  AgentRequest: componentOf(agentSchema),
};

const mcpOperations = (summary: string, parameters: unknown[]) => ({
  post: {
    summary: `${summary}: MCP's Streamable HTTP transport (JSON-RPC requests; answers as JSON or server-sent events)`,
    parameters,
    responses: { '200': { description: 'A JSON-RPC answer, or an event stream' }, ...errors },
  },
  get: {
    summary: `${summary}: the session's stream of server-initiated messages (elicitation, progress)`,
    parameters,
    responses: { '200': { description: 'An event stream' }, ...errors },
  },
  delete: {
    summary: `${summary}: end the session (its environment is removed unless it existed before)`,
    parameters,
    responses: { '200': { description: 'Ended' }, ...errors },
  },
});

export const MCP_PATHS: Record<string, unknown> = {
  '/v1beta/agents': {
    post: {
      summary:
        'Store an agent: a base agent, a base environment (its gates), instructions and tools',
      requestBody: { required: true, content: json('AgentRequest') },
      responses: {
        '201': { description: 'Stored: the agent, with `created`' },
        '409': { description: 'The tenant has an agent with that id', content: json('Error') },
        ...errors,
      },
    },
    get: {
      summary: "The caller's agents, paged (`page_size`, `page_token`)",
      responses: { '200': { description: '`{"agents": [...], "next_page_token"?}`' }, ...errors },
    },
  },
  '/v1beta/agents/{id}': {
    get: {
      summary: 'One agent',
      parameters: [id],
      responses: { '200': { description: 'The agent' }, ...errors },
    },
    delete: {
      summary: 'Delete an agent',
      parameters: [id],
      responses: { '200': { description: 'Deleted: `{}`' }, ...errors },
    },
  },
  '/v1beta/environments/{id}/mcp': mcpOperations('An existing environment over MCP', [id]),
  '/v1beta/mcp': mcpOperations(
    'A new environment per MCP session, from `?agent=…&template=…&snapshot_id=…&vocabulary=…` and the `x-hookbox-sources` header',
    [],
  ),
  '/v1beta/environments/{id}/approvals': {
    get: {
      summary: 'Calls over MCP that wait for an approval (clients without elicitation)',
      parameters: [id],
      responses: { '200': { description: '`{"approvals": [...]}`' }, ...errors },
    },
  },
  '/v1beta/environments/{id}/approvals/{call_id}': {
    post: {
      summary: 'Approve or deny a waiting call; recorded with who decided',
      parameters: [id, { name: 'call_id', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: { required: true, content: json('ApprovalAnswer') },
      responses: {
        '200': { description: 'Decided' },
        '409': { description: 'The approval expired', content: json('Error') },
        ...errors,
      },
    },
  },
  '/upload/v1beta/environments/{id}/files/{path}': {
    post: {
      summary:
        "Start a resumable upload (`X-Goog-Upload-Protocol: resumable`, `X-Goog-Upload-Command: start`); the answer's `X-Goog-Upload-URL` takes the chunks. `?extract=true` unpacks a tar, gzip-compressed tar or zip, `?overwrite=false` refuses an existing file. Also PUT, and under /upload/v1/",
      parameters: [id, { name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'Started: see the X-Goog-Upload-URL header' }, ...errors },
    },
  },
  '/upload/v1beta/sessions/{session}': {
    post: {
      summary:
        'A chunk of a resumable upload (`X-Goog-Upload-Command: upload` or `upload, finalize`, `X-Goog-Upload-Offset`)',
      parameters: [{ name: 'session', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'Taken; when finalized, the file as listed' }, ...errors },
    },
  },
};
