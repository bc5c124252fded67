/**
 * The controller's end of the agent's stream checks every answer against the protocol
 * (docs/agent-protocol.md): a wrong shape is `sandbox_protocol_violation` naming the operation and
 * the field, another protocol version on connect is `sandbox_agent_incompatible` naming both, and a
 * request the agent would misread is never sent. The agent here is a script on a fake stream; the
 * real agent's answers are checked against the same schema by test/agent/.
 */
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SystemError } from '../../../src/errors/index.js';
import { createLogger } from '../../../src/record/logger.js';
import { AgentConnection } from '../../../src/sandbox/agent-connection.js';
import { PROTOCOL_VERSION } from '../../../src/sandbox/protocol/index.js';

/** A connection whose agent answers each request with `answer(request)` (a raw line, or an object). */
function fakeAgent(answer: (request: { id: number; op: string }) => unknown) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const seen: { id: number; op: string }[] = [];
  createInterface({ input: stdin }).on('line', (line) => {
    if (line.trim() === '') return;
    const request = JSON.parse(line) as { id: number; op: string };
    seen.push(request);
    const reply = answer(request);
    stdout.write((typeof reply === 'string' ? reply : JSON.stringify(reply)) + '\n');
  });
  const connection = new AgentConnection(
    { stdin, stdout, stderr, close: () => {} },
    createLogger({ level: 'silent' }),
    'fake-container',
  );
  return { connection, seen };
}

const RUN_CODE = {
  code: 'true',
  language: 'bash',
  timeout_ms: 1000,
  output_cap_bytes: 1024,
} as const;

async function failure(promise: Promise<unknown>): Promise<SystemError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SystemError);
  return error as SystemError;
}

describe('answers are checked at the boundary', () => {
  it('an answer of the right shape is handed on', async () => {
    const { connection } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      result: {
        exit_code: 0,
        stdout: 'hi\n',
        stderr: '',
        timed_out: false,
        truncated: false,
        duration_ms: 3.5,
      },
    }));
    await expect(connection.request('run_code', RUN_CODE, 5000)).resolves.toMatchObject({
      stdout: 'hi\n',
    });
  });

  it('a field of the wrong type: sandbox_protocol_violation naming the operation and the field', async () => {
    const { connection } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      result: {
        exit_code: '0',
        stdout: '',
        stderr: '',
        timed_out: false,
        truncated: false,
        duration_ms: 1,
      },
    }));
    const error = await failure(connection.request('run_code', RUN_CODE, 5000));
    expect(error.code).toBe('sandbox_protocol_violation');
    expect(error.retryable).toBe(false);
    expect(error.details).toMatchObject({ operation: 'run_code', field: 'exit_code' });
    expect(error.message).toMatch(
      /^sandbox agent: its answer to run_code does not match protocol \d+: exit_code: .*number/,
    );
  });

  it('a missing field and an unknown one are named too', async () => {
    const { connection } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      result: { started: 1, waiting: 0 },
    }));
    const missing = await failure(
      connection.request(
        'prestart_hooks',
        { generation: 1, handlers: [], code_language: null },
        5000,
      ),
    );
    expect(missing.details).toMatchObject({ operation: 'prestart_hooks', field: 'workers' });
    const { connection: chatty } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      result: { killed: 2, spare: true },
    }));
    const unknown = await failure(chatty.request('kill_tool_processes', {}, 5000));
    expect(unknown.code).toBe('sandbox_protocol_violation');
    expect(unknown.message).toMatch(/kill_tool_processes .*: spare: unknown key "spare"/);
  });

  it('an answer of one of several shapes names the field of the closest shape', async () => {
    const { connection } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      result: { content: 42 },
    }));
    const error = await failure(
      connection.request('file', { tool: 'read_file', args: { path: 'a' } }, 5000),
    );
    expect(error.details).toMatchObject({ operation: 'file', field: 'content' });
  });

  it('a line that is neither a result nor an error is a violation, not a hang', async () => {
    const { connection } = fakeAgent(({ id }) => ({ id, status: 'done' }));
    const error = await failure(connection.request('kill_tool_processes', {}, 5000));
    expect(error.code).toBe('sandbox_protocol_violation');
    expect(error.message).toMatch(/kill_tool_processes is neither/);
  });

  it("the agent's own failure stays sandbox_failed, with the operation", async () => {
    const { connection } = fakeAgent(({ id }) => ({ id, ok: false, error: 'KeyError: x' }));
    const error = await failure(connection.request('kill_tool_processes', {}, 5000));
    expect([error.code, error.message, error.details.operation]).toEqual([
      'sandbox_failed',
      'sandbox agent: KeyError: x',
      'kill_tool_processes',
    ]);
  });

  it('an event of a shape the protocol does not know is dropped; the answer still arrives', async () => {
    const stdout = new PassThrough();
    const stdin = new PassThrough();
    const connection = new AgentConnection(
      { stdin, stdout, stderr: new PassThrough(), close: () => {} },
      createLogger({ level: 'silent' }),
      'fake-container',
    );
    const events: unknown[] = [];
    createInterface({ input: stdin }).on('line', (line) => {
      if (line.trim() === '') return;
      const { id } = JSON.parse(line) as { id: number };
      stdout.write(JSON.stringify({ id, event: 'output', stream: 'stdout', chunk: 'a' }) + '\n');
      stdout.write(JSON.stringify({ id, event: 'output', stream: 'elsewhere', chunk: 1 }) + '\n');
      stdout.write(
        JSON.stringify({
          id,
          ok: true,
          result: {
            exit_code: 0,
            stdout: 'a',
            stderr: '',
            timed_out: false,
            truncated: false,
            duration_ms: 1,
          },
        }) + '\n',
      );
    });
    await connection.request('run_code', { ...RUN_CODE, stream_output: true }, 5000, (event) =>
      events.push(event),
    );
    expect(events).toEqual([expect.objectContaining({ stream: 'stdout', chunk: 'a' })]);
  });
});

describe('requests are checked before they are sent', () => {
  it('a request the agent would misread is refused, naming the operation and field, and not sent', async () => {
    const { connection, seen } = fakeAgent(({ id }) => ({ id, ok: true, result: { killed: 0 } }));
    const error = await failure(
      connection.request(
        'run_code',
        // What a caller that bypasses the types might send: the wrong unit and a typo.
        { ...RUN_CODE, timeout_ms: 1.5 },
        5000,
      ),
    );
    expect(error.code).toBe('internal');
    expect(error.details).toMatchObject({ operation: 'run_code', field: 'timeout_ms' });
    expect(seen).toEqual([]);
  });
});

describe('the protocol version is checked on connect', () => {
  it("another version: sandbox_agent_incompatible naming the agent's and the controller's", async () => {
    const { connection } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      // Another version may have changed the answer's shape too: the version is named first.
      result: { protocol: PROTOCOL_VERSION + 1, pid: 7, time: 0, features: [] },
    }));
    const error = await failure(connection.handshake(5000, 'hookbox/sandbox:test'));
    expect(error.code).toBe('sandbox_agent_incompatible');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(
      `the sandbox agent of image hookbox/sandbox:test speaks protocol ${PROTOCOL_VERSION + 1}, this hookbox ${PROTOCOL_VERSION}`,
    );
    expect(error.details).toEqual({
      agent_protocol: PROTOCOL_VERSION + 1,
      controller_protocol: PROTOCOL_VERSION,
    });
  });

  it('the same version connects', async () => {
    const { connection } = fakeAgent(({ id }) => ({
      id,
      ok: true,
      result: { protocol: PROTOCOL_VERSION, pid: 7, time: 1.5 },
    }));
    await expect(connection.handshake(5000)).resolves.toEqual({
      protocol: PROTOCOL_VERSION,
      pid: 7,
      time: 1.5,
    });
  });

  it('a ping answer without a version is a violation naming the field', async () => {
    const { connection } = fakeAgent(({ id }) => ({ id, ok: true, result: { pid: 7, time: 1 } }));
    const error = await failure(connection.handshake(5000));
    expect(error.code).toBe('sandbox_protocol_violation');
    expect(error.details).toMatchObject({ operation: 'ping', field: 'protocol' });
  });
});
