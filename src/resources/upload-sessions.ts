/**
 * Google's resumable upload protocol for the SDKs' `environments.files.upload`
 * (docs/environments.md, "Files through the SDKs"): a `start` names the file and its size and
 * gets an upload URL; chunks follow at their offsets (`upload`, the last `upload, finalize`);
 * the file is written, through the gates, only when it is complete. A chunk at the wrong offset is
 * a 400 and loses nothing: the session keeps what it had.
 */
import { randomBytes } from 'node:crypto';
import { FILES_API_LIMITS } from '../controller/workspace-path.js';
import { UserError } from '../errors/index.js';

/** A session not finished this long after its last chunk is forgotten. */
const SESSION_TTL_MS = 60 * 60 * 1000;
/** Sessions open at once, server-wide. */
const MAX_SESSIONS = 256;

export interface UploadSession {
  id: string;
  environmentId: string;
  tenant: string | null | undefined;
  path: string;
  size: number;
  overwrite: boolean;
  extract: boolean;
  chunks: Buffer[];
  received: number;
  touched: number;
}

function refuse(
  field: string,
  rule: string,
  code: 'invalid_argument' | 'not_found' = 'invalid_argument',
): never {
  throw new UserError(code, `${field}: ${rule}`, { details: { field } });
}

function flagOf(raw: unknown, field: string): boolean {
  if (raw === undefined) return false;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  refuse(field, 'must be "true" or "false"');
}

export class UploadSessions {
  private readonly sessions = new Map<string, UploadSession>();

  /** `X-Goog-Upload-Command: start`: checks what it can, and opens a session. */
  start(
    environmentId: string,
    tenant: string | null | undefined,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    query: Record<string, unknown>,
  ): UploadSession {
    this.sweep();
    if (headers['x-goog-upload-protocol'] !== 'resumable')
      refuse('x-goog-upload-protocol', 'must be "resumable"');
    if (headers['x-goog-upload-command'] !== 'start')
      refuse('x-goog-upload-command', 'must be "start" on the upload path');
    const rawSize = headers['x-goog-upload-header-content-length'];
    const size = Number(rawSize);
    if (typeof rawSize !== 'string' || !/^\d+$/.test(rawSize))
      refuse('x-goog-upload-header-content-length', "must be the file's size in bytes");
    if (size > FILES_API_LIMITS.maxFileBytes)
      throw new UserError(
        'payload_too_large',
        `x-goog-upload-header-content-length: ${size} bytes, over the files API's limit of ${FILES_API_LIMITS.maxFileBytes}`,
        { details: { field: 'x-goog-upload-header-content-length' } },
      );
    const unknown = Object.keys(query).filter((key) => key !== 'overwrite' && key !== 'extract');
    if (unknown.length > 0)
      refuse(
        'query',
        `unknown parameter ${JSON.stringify(unknown[0])} (known: overwrite, extract)`,
      );
    if (this.sessions.size >= MAX_SESSIONS)
      throw new UserError(
        'quota_exceeded',
        `upload: ${MAX_SESSIONS} uploads are open; finish one`,
        {
          details: { field: 'upload' },
        },
      );
    const session: UploadSession = {
      id: randomBytes(16).toString('hex'),
      environmentId,
      tenant,
      path,
      size,
      overwrite: flagOf(query.overwrite, 'overwrite'),
      extract: flagOf(query.extract, 'extract'),
      chunks: [],
      received: 0,
      touched: Date.now(),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * One chunk at `X-Goog-Upload-Offset`; the whole file when the command says `finalize` (and
   * the session is then closed). Another tenant's session is a 404 like a missing one.
   */
  chunk(
    id: string,
    tenant: string | null | undefined,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ): { session: UploadSession; file?: Buffer } {
    const session = this.sessions.get(id);
    if (!session || session.tenant !== tenant)
      refuse('upload_id', 'no such upload (finished, expired or never started)', 'not_found');
    const command = String(headers['x-goog-upload-command'] ?? '')
      .split(',')
      .map((word) => word.trim());
    if (!command.includes('upload') && !command.includes('finalize'))
      refuse('x-goog-upload-command', 'must be "upload" or "upload, finalize"');
    const rawOffset = headers['x-goog-upload-offset'];
    if (typeof rawOffset !== 'string' || !/^\d+$/.test(rawOffset))
      refuse('x-goog-upload-offset', "must be the chunk's offset in bytes");
    if (Number(rawOffset) !== session.received)
      refuse(
        'x-goog-upload-offset',
        `is ${rawOffset}, but ${session.received} bytes have arrived: send the chunk that starts there`,
      );
    if (session.received + body.length > session.size)
      refuse('body', `goes past the ${session.size} bytes announced at start`);
    session.chunks.push(body);
    session.received += body.length;
    session.touched = Date.now();
    if (!command.includes('finalize')) return { session };
    if (session.received !== session.size)
      refuse(
        'x-goog-upload-command',
        `finalize after ${session.received} of ${session.size} bytes`,
      );
    this.sessions.delete(id);
    return { session, file: Buffer.concat(session.chunks) };
  }

  /** Whether the session `id` still takes chunks. */
  isOpen(id: string): boolean {
    return this.sessions.has(id);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions)
      if (now - session.touched > SESSION_TTL_MS) this.sessions.delete(id);
  }
}
