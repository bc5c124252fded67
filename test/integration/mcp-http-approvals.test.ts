import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { tenantOfPlainKey } from '../../src/tenants/keys.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { apiErrorOf } from './api-error.js';
import { connectClient, MCP_INLINE_SOURCES, textOf } from './mcp-helpers.js';

/**
 * `ask` over MCP for a client without elicitation (docs/mcp.md, "ask"): the call waits, its
 * request held open, for the approvals API; expiry denies; cancelling withdraws it. The SDK's own
 * client (no elicitation capability) against a real server and a real container, two tenants.
 */
const KEY_A = 'mcp-approvals-tenant-a-key';
const KEY_B = 'mcp-approvals-tenant-b-key';
const TENANT_A = tenantOfPlainKey(KEY_A).name;
/** Long enough for the API's answer, short enough to watch one expire. */
const TTL_MS = 6000;
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
let server: RunningServer;
let client: Client;
let environmentId: string;
const savedTtl = process.env.HOOKBOX_APPROVAL_TTL_MS;

beforeAll(async () => {
  process.env.HOOKBOX_APPROVAL_TTL_MS = String(TTL_MS);
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-mcp-approvals-')),
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
  const made = await api(KEY_A, 'POST', '/v1beta/interactions', {
    agent: 'scripted',
    input: 'x',
    environment: { type: 'remote', sources: MCP_INLINE_SOURCES },
  });
  environmentId = (made.body as { environment_id: string }).environment_id;
  client = await connectClient(
    new StreamableHTTPClientTransport(
      new URL(`${server.url}/v1beta/environments/${environmentId}/mcp`),
      {
        requestInit: { headers: { 'x-goog-api-key': KEY_A } },
      },
    ),
  );
});

afterAll(async () => {
  if (savedTtl === undefined) delete process.env.HOOKBOX_APPROVAL_TTL_MS;
  else process.env.HOOKBOX_APPROVAL_TTL_MS = savedTtl;
  await client?.close();
  await server?.close();
});

async function api(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      'x-goog-api-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface Listed {
  call_id: string;
  environment_id: string;
  interaction_id: null;
  via: string;
  mcp_client: string;
  tool_call: { name: string; args: { code: string } };
  reason: string;
  status: string;
  expires_at: string;
}

const approvalsPath = () => `/v1beta/environments/${environmentId}/approvals`;

/** The waiting calls tenant A sees, once `count` of them are there. */
async function waiting(count: number): Promise<Listed[]> {
  for (let tries = 0; tries < 300; tries++) {
    const { body } = await api(KEY_A, 'GET', approvalsPath());
    const approvals = body.approvals as Listed[];
    if (approvals.length === count) return approvals;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never ${count} waiting approvals`);
}

/** Calls code over MCP with a progress token; the notes it hears are collected. */
function askingCall(text: string, signal?: AbortSignal) {
  const notes: Progress[] = [];
  const result = client.callTool({ name: 'code_execution', arguments: { code: text } }, undefined, {
    onprogress: (progress) => notes.push(progress),
    ...(signal ? { signal } : {}),
  });
  return { notes, result };
}

const approvalRecords = () =>
  server.service.controller
    .listEnvironments()
    .find((environment) => environment.id === environmentId)!
    .records()
    .filter((entry) => entry.kind === 'approval') as unknown as Record<string, unknown>[];

describe('ask over MCP without elicitation: the approvals API decides', () => {
  it('an approved call runs and its result reaches the client; only the tenant may answer; who decided is recorded', async () => {
    const { notes, result } = askingCall('echo please-ask approved-ran');
    const [approval] = await waiting(1);
    expect(approval).toMatchObject({
      environment_id: environmentId,
      interaction_id: null,
      via: 'mcp',
      mcp_client: 'hookbox-test-client',
      tool_call: { name: 'code_execution', args: { code: 'echo please-ask approved-ran' } },
      reason: 'a human must look at this one',
      status: 'pending',
    });
    const note = String(notes[0]?.message);
    expect(note).toContain('waiting for approval: a human must look at this one');
    expect(note).toContain(`POST ${approvalsPath()}/${approval!.call_id}`);

    // Tenant B: neither the listing nor the answer exists for it.
    expect((await api(KEY_B, 'GET', approvalsPath())).status).toBe(404);
    const stranger = await api(KEY_B, 'POST', `${approvalsPath()}/${approval!.call_id}`, {
      approve: true,
    });
    expect(stranger.status).toBe(404);
    // A bad answer names the field.
    const bad = await api(KEY_A, 'POST', `${approvalsPath()}/${approval!.call_id}`, {
      approve: 'yes',
    });
    expect(bad.status).toBe(400);
    expect(apiErrorOf(bad.body).field).toBe('approve');
    expect(await waiting(1)).toHaveLength(1);

    const answered = await api(KEY_A, 'POST', `${approvalsPath()}/${approval!.call_id}`, {
      approve: true,
      reason: 'looks fine',
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      status: 'approved',
      decided_by: `tenant ${TENANT_A} via the approvals API`,
    });
    const ran = await result;
    expect(ran.isError).toBeFalsy();
    expect(textOf(ran)).toContain('please-ask approved-ran');
    expect(await waiting(0)).toEqual([]);
    const again = await api(KEY_A, 'POST', `${approvalsPath()}/${approval!.call_id}`, {
      approve: false,
    });
    expect(again.status).toBe(404);
    expect(approvalRecords()).toContainEqual(
      expect.objectContaining({
        call_id: approval!.call_id,
        interaction_id: null,
        status: 'approved',
        reason: 'looks fine',
        decided_by: `tenant ${TENANT_A} via the approvals API`,
      }),
    );
  });

  it('a denied call is an error result with the reason, and is recorded with who denied it', async () => {
    const { result } = askingCall('echo please-ask denied-ran');
    const [approval] = await waiting(1);
    const answered = await api(KEY_A, 'POST', `${approvalsPath()}/${approval!.call_id}`, {
      approve: false,
      reason: 'not today',
    });
    expect(answered.status).toBe(200);
    const denied = await result;
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('approval denied (not today): a human must look at this one');
    expect(textOf(denied)).not.toContain('denied-ran');
    expect(approvalRecords()).toContainEqual(
      expect.objectContaining({
        call_id: approval!.call_id,
        status: 'denied',
        reason: 'not today',
        decided_by: `tenant ${TENANT_A} via the approvals API`,
      }),
    );
  });

  it('an unanswered call expires as denied, and says so', async () => {
    const { result } = askingCall('echo please-ask expired-ran');
    const [approval] = await waiting(1);
    const expired = await result;
    expect(expired.isError).toBe(true);
    expect(textOf(expired)).toContain('approval expired, so denied: a human must look at this one');
    expect(await waiting(0)).toEqual([]);
    const late = await api(KEY_A, 'POST', `${approvalsPath()}/${approval!.call_id}`, {
      approve: true,
    });
    expect(late.status).toBe(404);
    expect(approvalRecords()).toContainEqual(
      expect.objectContaining({
        call_id: approval!.call_id,
        status: 'expired',
        decided_by: 'nobody (expired)',
      }),
    );
  });

  it('a cancelled request withdraws its waiting approval', async () => {
    const abort = new AbortController();
    const { result } = askingCall('echo please-ask withdrawn-ran', abort.signal);
    const [approval] = await waiting(1);
    abort.abort();
    await expect(result).rejects.toThrow();
    expect(await waiting(0)).toEqual([]);
    expect(approvalRecords()).toContainEqual(
      expect.objectContaining({
        call_id: approval!.call_id,
        status: 'denied',
        reason: 'withdrawn: the MCP request was cancelled while it waited',
      }),
    );
    // The session goes on: the next call runs.
    const next = await client.callTool({
      name: 'code_execution',
      arguments: { code: 'echo still-here' },
    });
    expect(textOf(next)).toContain('still-here');
  });
});
