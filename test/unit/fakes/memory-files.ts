/**
 * The in-memory agent's file system and its file tools (test/unit/fakes/memory-agent.ts): a map of
 * absolute paths to text, folders implied by the paths. Enough for the tools' answers to match the
 * agent protocol; no permissions, no symlinks, no limits (docs/testing.md, "The fast tier").
 */
import { posix } from 'node:path';
import type { AgentRequestOf } from '../../../src/sandbox/protocol/index.js';
import type { File202609ToolResult, FileToolResult } from '../../../src/tools/types.js';

export const WORKSPACE = '/workspace';

/** Text files by absolute path; a folder is any prefix of a file's path (and /workspace). */
export class MemoryFiles {
  readonly files = new Map<string, string>();

  constructor(initial: Record<string, string> = {}) {
    for (const [path, content] of Object.entries(initial)) this.write(path, content);
  }

  /** `path` as the agent reads it: relative paths are under /workspace. */
  static absolute(path: string): string {
    return posix.normalize(posix.isAbsolute(path) ? path : posix.join(WORKSPACE, path));
  }

  read(path: string): string | undefined {
    return this.files.get(MemoryFiles.absolute(path));
  }

  write(path: string, content: string): void {
    this.files.set(MemoryFiles.absolute(path), content);
  }

  delete(path: string): boolean {
    return this.files.delete(MemoryFiles.absolute(path));
  }

  isFolder(path: string): boolean {
    const folder = MemoryFiles.absolute(path);
    if (folder === WORKSPACE || folder === '/') return true;
    return [...this.files.keys()].some((file) => file.startsWith(`${folder}/`));
  }

  /** The entries right under a folder, sorted by name. */
  list(path: string): { name: string; type: 'file' | 'directory'; size: number }[] {
    const folder = MemoryFiles.absolute(path);
    const entries = new Map<string, { name: string; type: 'file' | 'directory'; size: number }>();
    for (const [file, content] of this.files) {
      if (!file.startsWith(`${folder}/`)) continue;
      const [name, ...rest] = file.slice(folder.length + 1).split('/');
      if (name === undefined) continue;
      entries.set(
        name,
        rest.length > 0
          ? { name, type: 'directory', size: 0 }
          : { name, type: 'file', size: Buffer.byteLength(content) },
      );
    }
    return [...entries.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** The `file` operation (vocabulary 2026-05's file tools). */
export function fileTool(files: MemoryFiles, request: AgentRequestOf<'file'>): FileToolResult {
  const { path, content } = request.args;
  switch (request.tool) {
    case 'read_file': {
      const text = files.read(path);
      return text === undefined ? { error: `${path}: no such file` } : { content: text };
    }
    case 'write_file':
      files.write(path, content ?? '');
      return { ok: true };
    case 'list_files':
      return files.isFolder(path)
        ? { entries: files.list(path) }
        : { error: `${path}: not a directory` };
    case 'delete_file':
      return files.delete(path) ? { ok: true } : { error: `${path}: no such file` };
  }
}

/** The `file_2026_09` operation: the tools of vocabulary 2026-09 a fast test needs. */
export function file202609Tool(
  files: MemoryFiles,
  request: AgentRequestOf<'file_2026_09'>,
): File202609ToolResult {
  const path = MemoryFiles.absolute(request.path);
  switch (request.tool) {
    case 'view_file': {
      const text = files.read(path);
      if (text === undefined) return { error: `${request.path}: no such file` };
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const first = request.start_line ?? 1;
      const last = Math.min(request.end_line ?? lines.length, lines.length);
      const shown = lines.slice(first - 1, last).map((line, i) => `${first + i}: ${line}`);
      return {
        path,
        total_lines: lines.length,
        start_line: first,
        end_line: last,
        content: shown.join('\n'),
        truncated: false,
      };
    }
    case 'write_to_file': {
      const created = files.read(path) === undefined;
      if (!created && !request.overwrite)
        return { error: `${request.path}: exists (Overwrite is false)` };
      files.write(path, request.content);
      return { ok: true, path, bytes_written: Buffer.byteLength(request.content), created };
    }
    case 'list_dir':
      return files.isFolder(path)
        ? { path, entries: files.list(path), truncated: false }
        : { error: `${request.path}: not a directory` };
    case 'delete_file':
      return files.delete(path) ? { ok: true, path } : { error: `${request.path}: no such file` };
    default:
      return { error: `${request.path}: ${request.tool} is not offered by the in-memory agent` };
  }
}
