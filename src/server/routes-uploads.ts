import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionService } from '../interactions/service.js';
import { UploadSessions } from '../resources/upload-sessions.js';
import { listFiles } from '../resources/file-listing.js';

type UploadRequest = FastifyRequest<{ Params: { id: string; '*': string; session: string } }>;

/**
 * The SDKs' `environments.files.upload` (docs/environments.md, "Files through the SDKs"):
 * `POST|PUT /upload/{v1beta|v1}/environments/{id}/files/{path}` starts a resumable upload, and
 * `POST /upload/v1beta/sessions/{session}` takes its chunks. Registered in the files routes' scope,
 * whose parser takes any body as bytes. The file is written, through the gates, when complete.
 */
export function registerUploadRoutes(scope: FastifyInstance, service: InteractionService): void {
  const sessions = new UploadSessions();

  const start = async (request: UploadRequest, reply: FastifyReply) => {
    const environment = service.environmentInUse(request.params.id, request.caller);
    const path = request.params['*'].replace(/^\/?workspace(\/|$)/, '');
    const session = sessions.start(
      environment.id,
      request.caller?.tenant,
      path,
      request.headers,
      (request.query ?? {}) as Record<string, unknown>,
    );
    const url = `${request.protocol}://${request.headers.host}/upload/v1beta/sessions/${session.id}`;
    return reply.header('x-goog-upload-url', url).header('x-goog-upload-status', 'active').send({});
  };
  // The JavaScript SDK starts with PUT, Google's protocol documents POST: both are taken.
  for (const version of ['v1beta', 'v1'])
    scope.route({
      method: ['POST', 'PUT'],
      url: `/upload/${version}/environments/:id/files/*`,
      handler: start,
    });

  scope.post<{ Params: { session: string } }>(
    '/upload/v1beta/sessions/:session',
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const id = request.params.session;
      try {
        const { session, file } = sessions.chunk(id, request.caller?.tenant, request.headers, body);
        if (!file) return reply.header('x-goog-upload-status', 'active').send({});
        const files = service.environmentInUse(session.environmentId, request.caller).files;
        const options = { overwrite: session.overwrite };
        if (session.extract) await files.writeArchive(session.path, file, options);
        else await files.write(session.path, file, options);
        const listed = await listFiles(files, session.path, {});
        return reply.header('x-goog-upload-status', 'final').send(listed);
      } catch (error) {
        // A refusal says whether the upload goes on (a chunk at the wrong offset) or is over: the
        // Python SDK sends a chunk again, and again, until an answer carries this header.
        reply.header('x-goog-upload-status', sessions.isOpen(id) ? 'active' : 'final');
        throw error;
      }
    },
  );
}
