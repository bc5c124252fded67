import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { tenantOfPlainKey } from '../../src/tenants/keys.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import {
  connectClient,
  environmentOf,
  MCP_INLINE_SOURCES,
  textOf,
  type Elicitations,
} from './mcp-helpers.js';

/**
 * MCP over Streamable HTTP as routes of `hookbox serve` (docs/mcp.md, "Streamable HTTP"): the
 * SDK's own client against a real server and real containers, two tenants.
 */
const KEY_A = 'mcp-http-tenant-a-key';
const KEY_B = 'mcp-http-tenant-b-key';
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
let server: RunningServer;
const clients: Client[] = [];

beforeAll(async () => {
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-mcp-http-')),
    logger,
    startEngine: false,
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [KEY_A, KEY_B],
    logger,
    controller,
  });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await server?.close();
});

function transportTo(path: string, key: string, headers: Record<string, string> = {}) {
  return new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
    requestInit: { headers: { 'x-goog-api-key': key, ...headers } },
  });
}

const sourcesHeader = {
  'x-hookbox-sources': Buffer.from(JSON.stringify(MCP_INLINE_SOURCES)).toString('base64'),
};
const code = (text: string) => ({ name: 'code_execution', arguments: { code: text } });
const liveIds = () => server.service.controller.listEnvironments().map((e) => e.id);

describe('MCP over Streamable HTTP', () => {
  it('makes an environment per session on /v1beta/mcp, gates its calls, removes it at the end', async () => {
    const elicitations: Elicitations = {
      asked: [],
      answer: { action: 'accept', content: { decision: 'approve' } },
    };
    const transport = transportTo('/v1/mcp?vocabulary=2026-09', KEY_A, sourcesHeader);
    const client = await connectClient(transport, elicitations);
    clients.push(client);

    const allowed = await client.callTool(code('echo over-http'));
    expect(allowed.isError, textOf(allowed)).toBe(false);
    expect(textOf(allowed)).toContain('over-http');
    const environmentId = environmentOf(allowed);
    expect(liveIds()).toContain(environmentId);
    const made = server.service.controller.listEnvironments().find((e) => e.id === environmentId);
    expect(made?.tenant).toBe(tenantOfPlainKey(KEY_A).name);

    const denied = await client.callTool(code('echo forbidden'));
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('the mcp test gate blocks forbidden words');

    const approved = await client.callTool(code('echo please-ask yes-ran'));
    expect(textOf(approved)).toContain('yes-ran');
    elicitations.answer = { action: 'decline' };
    const declined = await client.callTool(code('echo please-ask no-ran'));
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain('approval denied (declined in the client)');
    expect(elicitations.asked).toHaveLength(2);

    const messages: string[] = [];
    await client.callTool(code('echo first; sleep 0.3; echo second'), undefined, {
      onprogress: (progress) => messages.push(progress.message ?? ''),
    });
    expect(messages.join('')).toContain('second');

    // Cancelled: the tool is killed, so the next call (which waits its turn) finds no file.
    const abort = new AbortController();
    await new Promise<void>((started) => {
      void client
        .callTool(code('echo started; sleep 8; touch /workspace/finished'), undefined, {
          signal: abort.signal,
          onprogress: (progress) => progress.message?.includes('started') && started(),
        })
        .catch(() => {});
    });
    abort.abort();
    const after = await client.callTool(
      code('test -e /workspace/finished && echo finished || echo stopped'),
    );
    expect(textOf(after)).toContain('stopped');

    const unknown = await client.callTool({ name: 'read_file', arguments: {} }).catch((e) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('in 2026-09 use view_file');

    await transport.terminateSession();
    expect(liveIds()).not.toContain(environmentId);
  });

  it('serves an existing environment on /environments/{id}/mcp to its tenant only, and keeps it', async () => {
    const made = await fetch(`${server.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY_A, 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: 'scripted',
        input: 'x',
        environment: { type: 'remote', sources: MCP_INLINE_SOURCES },
      }),
    });
    const { environment_id: id } = (await made.json()) as { environment_id: string };

    // (A client without elicitation and an ask: mcp-http-approvals.test.ts.)
    const transport = transportTo(`/v1beta/environments/${id}/mcp`, KEY_A);
    const client = await connectClient(transport);
    clients.push(client);
    const result = await client.callTool(code('cat /workspace/notes/readme.txt'));
    expect(textOf(result)).toContain('notes for the mcp test');
    expect(environmentOf(result)).toBe(id);

    // Tenant B: neither the environment nor tenant A's session exists for it.
    const stranger = await connectClient(
      transportTo(`/v1beta/environments/${id}/mcp`, KEY_B),
    ).catch((e) => e);
    expect(stranger).toBeInstanceOf(StreamableHTTPError);
    expect((stranger as StreamableHTTPError).code).toBe(404);
    const hijack = await fetch(`${server.url}/v1beta/environments/${id}/mcp`, {
      method: 'POST',
      headers: {
        'x-goog-api-key': KEY_B,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    expect(apiErrorOf(await hijack.json()).field).toBe('mcp-session-id');
    const noKey = await fetch(`${server.url}/v1beta/mcp`, { method: 'POST' });
    expect(noKey.status).toBe(401);

    await transport.terminateSession();
    expect(liveIds()).toContain(id);
  });

  it('refuses a bad recipe before making anything', async () => {
    const before = liveIds().length;
    const bad = await fetch(`${server.url}/v1beta/mcp?vocabulary=1999-01`, {
      method: 'POST',
      headers: {
        'x-goog-api-key': KEY_A,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      }),
    });
    expect(bad.status).toBe(400);
    const error = apiErrorOf(await bad.json());
    expect(error.field).toBe('vocabulary');
    expect(liveIds().length).toBe(before);
  });
});
