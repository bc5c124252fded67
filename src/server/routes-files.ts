import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import { listFiles } from '../resources/file-listing.js';
import { registerUploadRoutes } from './routes-uploads.js';

const querySchema = z.strictObject({
  overwrite: z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).optional(),
  format: z.enum(['tar'], { error: 'must be "tar" (a folder as a tar archive)' }).optional(),
  // The Gemini SDKs' files.list and files.download (docs/environments.md, "Files through the SDKs").
  alt: z.enum(['media'], { error: 'must be "media" (the file\'s bytes)' }).optional(),
  recursive: z.string().optional(),
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

function queryOf(request: FastifyRequest): z.infer<typeof querySchema> {
  const parsed = querySchema.safeParse(request.query ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? String(issue.path[0]) : 'query';
  const message =
    issue.code === 'unrecognized_keys'
      ? `query: unknown parameter ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (known: overwrite, format, alt, recursive, page_size, page_token)`
      : `${field}: ${issue.message}`;
  throw new UserError('invalid_argument', message, {
    details: { field: issue.code === 'unrecognized_keys' ? 'query' : field },
  });
}

type FilesRequest = FastifyRequest<{ Params: { id: string; '*'?: string } }>;

function bodyOf(request: FastifyRequest): Buffer {
  const body = request.body;
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/**
 * The files API (docs/environments.md, "Files"): `GET|PUT|DELETE /v1beta/environments/{id}/files/{path}`.
 * Bodies are bytes whatever their content type (curl's `--data-binary` says form-urlencoded), so
 * these routes live in their own scope with a parser that takes any body as a buffer.
 */
export function registerFilesRoutes(app: FastifyInstance, service: InteractionService): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );

    const read = async (request: FilesRequest, reply: import('fastify').FastifyReply) => {
      const query = queryOf(request);
      const files = service.environmentInUse(request.params.id, request.caller).files;
      const path = request.params['*'] ?? '';
      // The SDKs' listing: JSON asked for (and not the bytes), or a listing parameter given.
      const listing =
        query.alt === undefined &&
        query.format === undefined &&
        (request.headers.accept === 'application/json' ||
          query.recursive !== undefined ||
          query.page_size !== undefined ||
          query.page_token !== undefined);
      if (listing) return listFiles(files, path, request.query as Record<string, unknown>);
      if (query.format === 'tar') {
        const archive = await files.readArchive(path);
        return reply.header('content-type', 'application/x-tar').send(archive);
      }
      // The SDKs name files as their listing does (`workspace/src/app.py`): download takes that too.
      const found = await files.read(
        query.alt === 'media' ? path.replace(/^\/?workspace(\/|$)/, '') : path,
      );
      if (found.type === 'directory')
        return {
          path: `/workspace/${found.path}`.replace(/\/$/, ''),
          type: 'directory',
          // hookbox's own listing, as before; the SDKs' (files.list) shows the times.
          entries: found.entries.map(({ name, type, size }) => ({ name, type, size })),
        };
      return reply.header('content-type', 'application/octet-stream').send(found.data);
    };

    const write = async (request: FilesRequest) => {
      const query = queryOf(request);
      const files = service.environmentInUse(request.params.id, request.caller).files;
      const path = request.params['*'] ?? '';
      const options = { overwrite: query.overwrite === 'true' };
      return query.format === 'tar'
        ? files.writeArchive(path, bodyOf(request), options)
        : files.write(path, bodyOf(request), options);
    };

    registerUploadRoutes(scope, service);
    scope.get<{ Params: { id: string } }>('/v1beta/environments/:id/files', read);
    scope.get<{ Params: { id: string; '*': string } }>('/v1beta/environments/:id/files/*', read);
    scope.put<{ Params: { id: string } }>('/v1beta/environments/:id/files', write);
    scope.put<{ Params: { id: string; '*': string } }>('/v1beta/environments/:id/files/*', write);
    scope.delete<{ Params: { id: string; '*': string } }>(
      '/v1beta/environments/:id/files/*',
      async (request) => {
        queryOf(request);
        const files = service.environmentInUse(request.params.id, request.caller).files;
        return files.delete(request.params['*']);
      },
    );
  });
}
