import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar-stream';
import { SystemError, UserError } from '../errors/index.js';
import type { AuditEntry } from '../record/audit-log.js';
import type { HookRecord } from '../record/types.js';
import type { z } from 'zod';
import { WORKSPACE_FILES_ANSWERS, type AgentRequestOf } from '../sandbox/protocol/index.js';
import { checkAnswerShape } from '../sandbox/protocol/check.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { JsonObject } from '../tools/types.js';
import {
  afterChange,
  gateCallOf,
  gateChange,
  type FilesGateHost,
} from '../hooks/gates/files-gate.js';
import { newCallId } from '../ids.js';
import { FILES_API_LIMITS, workspacePathOf } from './workspace-path.js';

/** When an entry was last modified, and when its inode last changed (ms since the epoch). */
export interface FileTimes {
  mtimeMs: number;
  ctimeMs: number;
}

/** An entry of a folder's listing. */
export interface FileEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** Absent from agents older than the SDKs' files.list. */
  times?: FileTimes;
}

/** What `read` found: a file's bytes, or a folder's listing (with its own times). */
export type FileRead =
  | { type: 'file'; path: string; data: Buffer; times?: FileTimes }
  | { type: 'directory'; path: string; entries: FileEntry[]; times?: FileTimes };

/** What a files-API change came to (it is in the audit log as a `file` entry). */
export interface FileChange {
  call_id: string;
  /** Relative to /workspace. */
  path: string;
  /** Files written (1 for a single file, 0 for a delete). */
  files: number;
  bytes: number;
  /** The hooks that ran for it (none when the operator turned the gates off for the files API). */
  hooks: HookRecord[];
}

export interface FileWriteOptions {
  /** Replace a file that exists; without it an existing file is a 409. @default false */
  overwrite?: boolean;
}

/** What an environment lends its files API. */
export interface WorkspaceFilesHost extends FilesGateHost {
  sandbox: Sandbox;
  /** Runs `work` between tool calls, never during one. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  audit(entry: AuditEntry): void;
  /** Whether changes meet the gates (docs/environments.md, "Files and the gates"). */
  gated: boolean;
  /** Throws when the environment was deleted. */
  assertLive(): void;
}

type FilesRequest = AgentRequestOf<'workspace_files'>;
type FilesAction = FilesRequest['action'];
/** A request of any action, without the limit every request carries. */
type ActionRequest = FilesRequest extends infer R
  ? R extends unknown
    ? Omit<R, 'max_bytes'>
    : never
  : never;
type ActionAnswer<A extends FilesAction> = z.output<(typeof WORKSPACE_FILES_ANSWERS)[A]>;
type AgentFailure = { error_kind: string; error: string };

const AGENT_TIMEOUT_MS = 120_000;

/**
 * The agent's refusal as the error the API answers with. What tool code planted in /workspace (a
 * symlink loop, a fifo, a link out of it or into the gates' mirror) is the caller's 4xx naming the
 * path; only an error the agent did not expect (`os`) is the sandbox's 500 (docs/environments.md,
 * "Files").
 */
function failureOf(answer: AgentFailure, field: string): never {
  const message = `${field}: ${answer.error}`;
  const details = { field, reason: answer.error_kind };
  switch (answer.error_kind) {
    case 'not_found':
      throw new UserError('not_found', message, { details });
    case 'exists':
      throw new UserError('conflict', message, { details });
    case 'too_large':
    case 'no_space':
      throw new UserError('payload_too_large', message, { details });
    case 'permission':
    case 'read_only':
      throw new UserError('permission_denied', message, { details });
    case 'os':
      throw new SystemError('sandbox_failed', message, { details });
    default:
      throw new UserError('invalid_argument', message, { details });
  }
}

/**
 * The files API of one environment (docs/environments.md, "Files"): bytes in and out of /workspace,
 * through the sandbox agent as the tool user. Changes meet the gates as the vocabulary's write or
 * delete tool unless the operator turned that off, and every change is recorded.
 */
export class WorkspaceFiles {
  constructor(private readonly host: WorkspaceFilesHost) {}

  /** One action of the agent's files API; its answer checked as that action's (docs/agent-protocol.md). */
  private async ask<R extends ActionRequest>(
    body: R,
    field = 'path',
  ): Promise<ActionAnswer<R['action']>> {
    const answer = await this.host.sandbox.request(
      'workspace_files',
      { max_bytes: FILES_API_LIMITS.maxFileBytes, ...body },
      AGENT_TIMEOUT_MS,
    );
    if ('error_kind' in answer) failureOf(answer, field);
    return checkAnswerShape(
      'workspace_files',
      WORKSPACE_FILES_ANSWERS[body.action as R['action']],
      answer,
    ) as ActionAnswer<R['action']>;
  }

  /** A file's bytes, or a folder's listing (`""` is /workspace). */
  async read(rawPath: string): Promise<FileRead> {
    this.host.assertLive();
    const path = workspacePathOf(rawPath, { allowRoot: true });
    const answer = await this.host.exclusive(() => this.ask({ action: 'get', path }));
    const times = { mtimeMs: answer.mtime_ms, ctimeMs: answer.ctime_ms };
    return answer.type === 'file'
      ? { type: 'file', path, data: Buffer.from(answer.data, 'base64'), times }
      : {
          type: 'directory',
          path,
          times,
          entries: answer.entries.map((entry) => ({
            name: entry.name,
            type: entry.type,
            size: entry.size,
            times: { mtimeMs: entry.mtime_ms, ctimeMs: entry.ctime_ms },
          })),
        };
  }

  /** A folder as a tar archive (symlinks stored as links, never followed). */
  async readArchive(rawPath: string): Promise<Buffer> {
    this.host.assertLive();
    const path = workspacePathOf(rawPath, { allowRoot: true });
    const answer = await this.host.exclusive(() => this.ask({ action: 'tar', path }));
    return Buffer.from(answer.data, 'base64');
  }

  /** Writes one file (parent folders are made); 409 when it exists and `overwrite` is not set. */
  async write(
    rawPath: string,
    data: Uint8Array,
    options: FileWriteOptions = {},
  ): Promise<FileChange> {
    this.host.assertLive();
    const path = workspacePathOf(rawPath, { write: true, file: true });
    if (data.byteLength > FILES_API_LIMITS.maxFileBytes)
      throw new UserError(
        'payload_too_large',
        `body: ${data.byteLength} bytes, over the files API's limit of ${FILES_API_LIMITS.maxFileBytes}`,
        { details: { field: 'body', limit: FILES_API_LIMITS.maxFileBytes } },
      );
    const overwrite = options.overwrite ?? false;
    return this.change('put', path, [{ path, data }], overwrite, () =>
      this.ask({
        action: 'put',
        path,
        data: Buffer.from(data).toString('base64'),
        overwrite,
      }).then((answer) => ({ files: 1, bytes: answer.bytes })),
    );
  }

  /** Deletes a file, or an empty folder. */
  async delete(rawPath: string): Promise<FileChange> {
    this.host.assertLive();
    const path = workspacePathOf(rawPath, { write: true });
    return this.change('delete', path, [{ path }], false, () =>
      this.ask({ action: 'delete', path }).then(() => ({
        files: 0,
        bytes: 0,
      })),
    );
  }

  /**
   * Unpacks an archive into a folder (`""`: /workspace): a tar, a gzip-compressed tar or a zip,
   * told apart by their first bytes (docs/environments.md, "Files"). Regular files and folders
   * only, each path checked as a files-API path and each file shown to the gates; all written or
   * none.
   */
  async writeArchive(
    rawPath: string,
    archive: Uint8Array,
    options: FileWriteOptions = {},
  ): Promise<FileChange> {
    this.host.assertLive();
    const folder = workspacePathOf(rawPath, { allowRoot: true, write: rawPath !== '' });
    const entries = await readTar(await this.asTar(archive), folder);
    const overwrite = options.overwrite ?? false;
    const files = entries.filter((entry) => entry.data !== undefined);
    return this.change('put_tar', folder, files, overwrite, () =>
      this.ask(
        {
          action: 'put_many',
          overwrite,
          entries: entries.map((entry) =>
            entry.data === undefined
              ? { type: 'directory', path: entry.path }
              : { type: 'file', path: entry.path, data: entry.data.toString('base64') },
          ),
        },
        'body',
      ),
    );
  }

  /**
   * The archive as a tar: a gzip is inflated here (at most the files API's limit); a zip is read
   * into a tar by the sandbox agent, so that a hostile zip is parsed inside the sandbox and its
   * members are then checked as a tar's are, in one place ({@link readTar}).
   */
  private async asTar(archive: Uint8Array): Promise<Uint8Array> {
    const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        return gunzipSync(bytes, { maxOutputLength: FILES_API_LIMITS.maxFileBytes });
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new UserError(
          code === 'ERR_BUFFER_TOO_LARGE' ? 'payload_too_large' : 'invalid_argument',
          code === 'ERR_BUFFER_TOO_LARGE'
            ? `body: the archive unpacks to over the files API's limit of ${FILES_API_LIMITS.maxFileBytes} bytes`
            : `body: not a gzip-compressed tar archive (${(error as Error).message})`,
          { details: { field: 'body' } },
        );
      }
    }
    const zip = bytes.subarray(0, 4).toString('latin1');
    if (zip !== 'PK\x03\x04' && zip !== 'PK\x05\x06') return bytes;
    const answer = await this.host.exclusive(() =>
      this.ask({ action: 'zip_to_tar', data: bytes.toString('base64') }, 'body'),
    );
    return Buffer.from(answer.data, 'base64');
  }

  /** Gates (each file), change, post hooks, audit: on the environment's queue, between calls. */
  private async change(
    op: 'put' | 'put_tar' | 'delete',
    path: string,
    items: { path: string; data?: Uint8Array }[],
    overwrite: boolean,
    apply: () => Promise<{ files: number; bytes: number }>,
  ): Promise<FileChange> {
    const host = this.host;
    const callId = newCallId();
    return host.exclusive(async () => {
      const hooks: HookRecord[] = [];
      const calls = items.map((item) =>
        gateCallOf(
          host.vocabulary,
          op === 'delete'
            ? { kind: 'delete', path: item.path }
            : { kind: 'write', path: item.path, data: item.data ?? new Uint8Array(), overwrite },
        ),
      );
      if (host.gated) {
        for (const call of calls) {
          const gate = await gateChange(host, call, callId);
          hooks.push(...gate.hooks);
          if (gate.blocked) {
            this.record(op, path, callId, { blocked: true, reason: gate.reason, gated: true });
            throw new UserError(
              'permission_denied',
              `path: a gate blocked the ${op === 'delete' ? 'delete' : 'write'} of ${(call.args.TargetFile ?? call.args.path) as string}: ${gate.reason ?? 'denied'}`,
              { details: { field: 'path', call_id: callId, reason: gate.reason } },
            );
          }
        }
      }
      let done: { files: number; bytes: number };
      try {
        done = await apply();
      } catch (error) {
        this.record(op, path, callId, {
          blocked: false,
          reason: null,
          gated: host.gated,
          error: (error as Error).message,
        });
        throw error;
      }
      if (host.gated) {
        const result: JsonObject = { ok: true };
        for (const call of calls) hooks.push(...(await afterChange(host, call, callId, result)));
      }
      this.record(op, path, callId, { blocked: false, reason: null, gated: host.gated, ...done });
      return { call_id: callId, path, files: done.files, bytes: done.bytes, hooks };
    });
  }

  private record(
    op: 'put' | 'put_tar' | 'delete',
    path: string,
    callId: string,
    fields: {
      blocked: boolean;
      reason: string | null;
      gated: boolean;
      files?: number;
      bytes?: number;
      error?: string;
    },
  ): void {
    this.host.audit({
      kind: 'file',
      at: new Date().toISOString(),
      environment_id: this.host.environmentId,
      call_id: callId,
      op,
      path: `/workspace/${path}`.replace(/\/$/, ''),
      ...fields,
    });
  }
}

interface ArchiveEntry {
  path: string;
  /** Undefined for a folder. */
  data?: Buffer;
}

/** The entries of an uploaded tar archive, each path checked (field `body`, naming the member). */
async function readTar(archive: Uint8Array, folder: string): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  const unpack = extract();
  const refuse = (rule: string) =>
    new UserError('invalid_argument', `body: ${rule}`, { details: { field: 'body' } });
  const done = new Promise<void>((resolve, reject) => {
    unpack.on('entry', (header, stream, next) => {
      const name = header.name.replace(/^\.\//, '');
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('error', reject);
      stream.on('end', () => {
        try {
          if (name === '' || name === '.' || name === './') return next();
          if (header.type !== 'file' && header.type !== 'directory')
            throw refuse(
              `archive member ${JSON.stringify(header.name)} is a ${header.type}; only files and folders are accepted`,
            );
          if (entries.length >= FILES_API_LIMITS.maxArchiveEntries)
            throw refuse(`more than ${FILES_API_LIMITS.maxArchiveEntries} members`);
          const member = workspacePathOf(name, {
            field: 'body',
            label: 'body: archive member',
            write: true,
          });
          const path = folder === '' ? member : `${folder}/${member}`;
          workspacePathOf(path, { field: 'body', label: 'body: unpacked to', write: true });
          entries.push(
            header.type === 'directory' ? { path } : { path, data: Buffer.concat(chunks) },
          );
          next();
        } catch (error) {
          // What the checks above throw (UserError) or Buffer.concat (RangeError): always an Error.
          reject(error instanceof Error ? error : new Error(String(error)));
          unpack.destroy();
        }
      });
    });
    unpack.on('finish', resolve);
    unpack.on('error', (error) =>
      reject(error instanceof UserError ? error : refuse(`not a tar archive (${error.message})`)),
    );
  });
  Readable.from([Buffer.from(archive)]).pipe(unpack);
  await done;
  return entries;
}
