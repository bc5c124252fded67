/** The interaction routes (docs/contract.md §9; docs/gemini-sdks.md): create, get, stream, cancel, delete. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toHookboxError, UserError } from '../errors/index.js';
import type { FeedEvent } from '../interactions/sdk-events.js';
import type { Interaction } from '../interactions/schema.js';
import type { InteractionService } from '../interactions/service.js';
import { EventStream, DEFAULT_STREAM_BUFFER_BYTES, EVENT_STREAM_HEADERS } from './event-stream.js';

/**
 * Answers with server-sent events: each of `events` as it comes, the final Interaction (`final`)
 * written a step at a time as the client reads it.
 */
async function streamEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  interactionId: string,
  events: AsyncIterable<FeedEvent>,
  final: () => Promise<Interaction>,
  bufferBytes: number,
): Promise<FastifyReply> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, EVENT_STREAM_HEADERS);
  // A client that goes away does not stop the interaction (GET finds it); its socket errors are moot.
  raw.on('error', (error) => request.log.info({ err: error }, 'event stream closed by the client'));
  const stream = new EventStream(
    raw,
    (reason) =>
      request.log.warn(
        { interaction: interactionId, reason },
        'event stream dropped: the client does not read',
      ),
    bufferBytes,
  );
  try {
    for await (const event of events) {
      if (event.event_type === 'interaction.completed')
        await stream.complete(await final(), event.event_id);
      else stream.send(event);
    }
  } catch (error) {
    const failure = toHookboxError(error);
    request.log.error({ err: error }, 'streamed interaction failed');
    stream.send({
      event_type: 'error',
      event_id: 'evt_error',
      error: { code: failure.code, message: failure.message },
    });
  } finally {
    stream.end();
  }
  return reply;
}

/** `stream` and `last_event_id` of `GET /v1beta/interactions/{id}`. */
function getQuery(query: Record<string, unknown>): { stream: boolean; lastEventId?: string } {
  const stream = query.stream;
  if (stream !== undefined && stream !== 'true' && stream !== 'false')
    throw new UserError('invalid_argument', 'stream: must be true or false', {
      details: { field: 'stream' },
    });
  const last = query.last_event_id;
  return {
    stream: stream === 'true',
    ...(typeof last === 'string' && last !== '' ? { lastEventId: last } : {}),
  };
}

export function registerInteractionRoutes(
  api: FastifyInstance,
  service: InteractionService,
  streamBufferBytes = DEFAULT_STREAM_BUFFER_BYTES,
): void {
  api.post('/v1beta/interactions', async (request, reply) => {
    const prepared = await service.prepare(request.body, request.caller);
    const { id } = prepared.interaction;
    if (prepared.request.background) {
      // docs/gemini-sdks.md, "Background and cancel": answered now; GET follows it.
      void service.run(prepared, undefined, { liveOutput: true }).catch(() => {});
      return structuredClone(prepared.interaction);
    }
    if (!prepared.request.stream) return service.run(prepared);
    const work = service.run(prepared, undefined, { liveOutput: true });
    const events = await service.follow(id, undefined, request.caller);
    return streamEvents(request, reply, id, events, () => work, streamBufferBytes);
  });

  api.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/v1beta/interactions/:id',
    async (request, reply) => {
      const { id } = request.params;
      const query = getQuery(request.query);
      if (!query.stream) return service.interactionAt(id, 'id', request.caller);
      const events = await service.follow(id, query.lastEventId, request.caller);
      return streamEvents(
        request,
        reply,
        id,
        events,
        () => service.interactionAt(id, 'id', request.caller),
        streamBufferBytes,
      );
    },
  );

  api.post<{ Params: { id: string } }>('/v1beta/interactions/:id/cancel', async (request) =>
    service.cancel(request.params.id, request.caller),
  );

  api.delete<{ Params: { id: string } }>('/v1beta/interactions/:id', async (request) => {
    await service.deleteInteraction(request.params.id, request.caller);
    return {};
  });
}
