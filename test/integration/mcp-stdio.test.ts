import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogPath, readAuditLog } from '../../src/record/audit-log.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_CONTROLLER_PID, LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { sourcesDir } from './cli-helpers.js';
import {
  connectClient,
  environmentOf,
  MCP_SOURCES,
  textOf,
  type Elicitations,
} from './mcp-helpers.js';

/**
 * `hookbox mcp` on stdio (docs/mcp.md), driven by the SDK's own client spawning the real CLI: every
 * call meets the environment's gates in a real container.
 */
const home = mkdtempSync(join(tmpdir(), 'hookbox-mcp-stdio-'));
const elicitations: Elicitations = { asked: [], answer: { action: 'cancel' } };
let transport: StdioClientTransport;
let client: Client;
let stderr = '';

beforeAll(async () => {
  transport = new StdioClientTransport({
    command: 'node',
    args: [resolve('bin/hookbox.js'), 'mcp', '--sources', sourcesDir(MCP_SOURCES)],
    env: { ...process.env, HOOKBOX_HOME: home },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  client = await connectClient(transport, elicitations);
});

afterAll(async () => {
  await client?.close();
});

const code = (text: string) => ({ name: 'code_execution', arguments: { code: text } });

function audit(environmentId: string) {
  return readAuditLog(auditLogPath(home, environmentId));
}

describe('hookbox mcp (stdio)', () => {
  it('lists the vocabulary with JSON Schemas as inputSchema', async () => {
    const { tools } = await client.listTools();
    const execution = tools.find((tool) => tool.name === 'code_execution');
    expect(execution?.inputSchema).toMatchObject({
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code'],
    });
    expect(tools.map((tool) => tool.name)).toContain('view_file');
  });

  it('runs an allowed call and blocks a denied one with the gate reason, both recorded', async () => {
    const allowed = await client.callTool(code('echo hello-from-mcp'));
    expect(allowed.isError, textOf(allowed)).toBe(false);
    expect(textOf(allowed)).toContain('hello-from-mcp');

    const denied = await client.callTool(code('echo forbidden > /workspace/x'));
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('the mcp test gate blocks forbidden words');
    const calls = audit(environmentOf(denied)).filter((entry) => entry.kind === 'tool_call');
    expect(calls.map((entry) => (entry as { blocked: boolean }).blocked)).toEqual([false, true]);
    // The tool did not run: the file is not there.
    const check = await client.callTool(code('test -e /workspace/x && echo there || echo absent'));
    expect(textOf(check)).toContain('absent');
  });

  it('asks the user through elicitation: approved runs, denied is blocked, both recorded', async () => {
    elicitations.answer = { action: 'accept', content: { decision: 'approve' } };
    const approved = await client.callTool(code('echo please-ask approved-ran'));
    expect(approved.isError, textOf(approved)).toBe(false);
    expect(textOf(approved)).toContain('approved-ran');
    expect(elicitations.asked.at(-1)?.message).toContain('a human must look at this one');

    elicitations.answer = { action: 'accept', content: { decision: 'deny', reason: 'not today' } };
    const denied = await client.callTool(code('echo please-ask denied-ran'));
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('approval denied (not today): a human must look at this one');

    const answers = audit(environmentOf(denied)).filter((entry) => entry.kind === 'approval');
    expect(answers).toMatchObject([
      {
        status: 'approved',
        interaction_id: null,
        decided_by: expect.stringContaining('hookbox-test-client'),
      },
      {
        status: 'denied',
        reason: 'not today',
        decided_by: expect.stringContaining('hookbox-test-client'),
      },
    ]);
  });

  it('sends live output as progress notifications', async () => {
    const messages: string[] = [];
    const result = await client.callTool(
      code('for i in 1 2 3; do echo tick$i; sleep 0.2; done'),
      undefined,
      { onprogress: (progress) => messages.push(progress.message ?? '') },
    );
    expect(result.isError).toBe(false);
    expect(messages.join('')).toContain('tick1');
    expect(messages.join('')).toContain('tick3');
  });

  it('stops a call the client cancels', async () => {
    const abort = new AbortController();
    const started = new Promise<void>((done) => {
      void client
        .callTool(code('echo started; sleep 8; touch /workspace/finished'), undefined, {
          signal: abort.signal,
          onprogress: (progress) => progress.message?.includes('started') && done(),
        })
        .catch(() => {});
    });
    await started;
    abort.abort();
    // Calls run one after another: this one runs once the cancelled one ended, which it did
    // without reaching its last line.
    const after = await client.callTool(
      code('test -e /workspace/finished && echo finished || echo stopped'),
    );
    expect(textOf(after)).toContain('stopped');
  });

  it('lists and reads the workspace files as resources', async () => {
    const { resources } = await client.listResources();
    const readme = resources.find((resource) => resource.name === 'notes/readme.txt');
    expect(readme?.uri).toBe('file:///workspace/notes/readme.txt');
    const read = await client.readResource({ uri: readme!.uri });
    expect(read.contents[0]).toMatchObject({ text: 'notes for the mcp test\n' });
  });

  it('answers bad input with MCP errors and keeps serving', async () => {
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('unknown tool "no_such_tool"');

    const mistyped = await client
      .callTool({ name: 'code_execution', arguments: { code: 42 } })
      .catch((e) => e);
    expect(mistyped).toBeInstanceOf(McpError);
    expect(mistyped.code).toBe(ErrorCode.InvalidParams);
    expect(mistyped.message).toContain('code');

    const still = await client.callTool(code('echo still-serving'));
    expect(textOf(still)).toContain('still-serving');
  });

  it('blocks an ask for a client without elicitation: no API answers on stdio', async () => {
    const plain = await connectClient(
      new StdioClientTransport({
        command: 'node',
        args: [resolve('bin/hookbox.js'), 'mcp', '--sources', sourcesDir(MCP_SOURCES)],
        env: { ...process.env, HOOKBOX_HOME: home },
        stderr: 'ignore',
      }),
    );
    try {
      const asked = await plain.callTool(code('echo please-ask unasked-ran'));
      expect(asked.isError).toBe(true);
      expect(textOf(asked)).toContain('approval required: a human must look at this one');
      expect(textOf(asked)).not.toContain('unasked-ran');
    } finally {
      await plain.close();
    }
  });

  it('removes its environment when the client goes', async () => {
    const pid = transport.pid!;
    await client.close();
    const docker = new DockerContainerClient(createLogger({ level: 'silent' }));
    const filter = [`${LABEL_MANAGED}=true`, `${LABEL_CONTROLLER_PID}=${pid}`];
    // The server removes the container before it exits; wait for the exit.
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 200));
    expect(isAlive(pid), stderr).toBe(false);
    expect(await docker.listContainers(filter)).toEqual([]);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
