import { describe, expect, it } from 'vitest';
import { Hookbox, HookboxApiError } from '../../../src/client/index.js';
import { UserError } from '../../../src/errors/index.js';
import type { Interaction } from '../../../src/interactions/schema.js';

const INTERACTION: Interaction = {
  id: 'int_1',
  object: 'interaction',
  agent: 'scripted',
  status: 'completed',
  created: '2026-12-01T00:00:00.000Z',
  updated: '2026-12-01T00:00:01.000Z',
  environment_id: 'env_1',
  steps: [{ type: 'user_input', content: [{ type: 'text', text: 'hi' }] }],
  output_text: '',
};

/** A fetch that answers every request with one body, sent in the given chunks. */
function answering(status: number, chunks: string[], type = 'application/json'): typeof fetch {
  return async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { 'content-type': type } });
  };
}

function client(fetchImpl: typeof fetch): Hookbox {
  return new Hookbox({ baseUrl: 'http://hookbox.test', apiKey: 'k', fetch: fetchImpl });
}

/** Splits a text into pieces of `size` characters, so that frames break mid-line. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

describe('the TypeScript client checks what the server answers', () => {
  it('parses a real interaction through the exported schema', async () => {
    const valid = await client(answering(200, [JSON.stringify(INTERACTION)])).interactions.get(
      'int_1',
    );
    expect(valid).toEqual(INTERACTION);
  });

  it('refuses an answer of the wrong shape with an error naming the field', async () => {
    const wrong = { ...INTERACTION, status: 'done' };
    const error = await client(answering(200, [JSON.stringify(wrong)]))
      .interactions.get('int_1')
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(HookboxApiError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
    expect((error as Error).message).toContain('at status');
  });

  it('refuses a body that is not JSON', async () => {
    const error = await client(answering(200, ['<html>proxy</html>']))
      .environments.list()
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as Error).message).toContain('not JSON');
  });

  it("reads Google's error envelope back to hookbox's code, and a foreign body by its status", async () => {
    const ours = JSON.stringify({
      error: {
        code: 404,
        message: 'environment: environment env_x does not exist',
        status: 'NOT_FOUND',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'not_found',
            domain: 'hookbox.dev',
            metadata: { field: 'environment', retryable: 'false' },
          },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [] },
        ],
      },
    });
    const error = await client(answering(404, [ours]))
      .environments.get('env_x')
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      status: 404,
      code: 'not_found',
      rpcStatus: 'NOT_FOUND',
      retryable: false,
      details: { field: 'environment' },
    });
    expect((error as HookboxApiError).toHookboxError()).toBeInstanceOf(UserError);
    expect((error as HookboxApiError).toHookboxError()).toMatchObject({
      code: 'not_found',
      message: 'environment: environment env_x does not exist',
      details: { field: 'environment', http_status: 404 },
    });
    // Google's envelope from another service: its status name stands for the code.
    const google = JSON.stringify({
      error: { code: 503, message: 'The service is unavailable.', status: 'UNAVAILABLE' },
    });
    await expect(client(answering(503, [google])).environments.get('env_x')).rejects.toMatchObject({
      status: 503,
      code: 'UNAVAILABLE',
      message: 'The service is unavailable.',
    });
    // The old shape (a string code) is no envelope: read by its status.
    const old = JSON.stringify({ error: { code: 'not_found', message: 'gone', status: 404 } });
    await expect(client(answering(404, [old])).environments.get('env_x')).rejects.toMatchObject({
      status: 404,
      code: 'http_error',
    });
    await expect(
      client(answering(502, ['Bad Gateway'], 'text/plain')).environments.get('env_x'),
    ).rejects.toMatchObject({ status: 502, code: 'http_error' });
  });

  it('parses SSE split anywhere, with CRLF, comments and multi-line data', async () => {
    const created = JSON.stringify({
      event_type: 'interaction.created',
      event_id: 'evt_1',
      interaction: INTERACTION,
    });
    const step = JSON.stringify(
      { event_type: 'step.start', event_id: 'evt_2', index: 0, step: INTERACTION.steps[0] },
      null,
      2,
    );
    const complete = JSON.stringify({
      event_type: 'interaction.completed',
      event_id: 'evt_3',
      interaction: INTERACTION,
    });
    const stream =
      `: keep-alive\r\n\r\n` +
      `event: interaction.created\r\ndata: ${created}\r\n\r\n` +
      `event: step.start\n${step
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n')}\n\n` +
      `event: interaction.completed\ndata: ${complete}\n\n`;
    for (const size of [1, 7, 64, stream.length]) {
      const events = [];
      for await (const event of await client(
        answering(200, pieces(stream, size), 'text/event-stream'),
      ).interactions.create({
        agent: 'scripted',
        input: 'hi',
        environment: 'remote',
        stream: true,
      }))
        events.push(event);
      expect(events.map((event) => event.event_type)).toEqual([
        'interaction.created',
        'step.start',
        'interaction.completed',
      ]);
      expect(events[1]).toMatchObject({ index: 0, step: { type: 'user_input' } });
    }
  });

  it('refuses a stream event of the wrong shape', async () => {
    const stream = `data: ${JSON.stringify({ event_type: 'step.start', index: 'one' })}\n\n`;
    const events = await client(answering(200, [stream], 'text/event-stream')).interactions.create({
      agent: 'scripted',
      input: 'hi',
      environment: 'remote',
      stream: true,
    });
    const error = await (async () => {
      for await (const event of events) void event;
    })().catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'invalid_response' });
  });
});
