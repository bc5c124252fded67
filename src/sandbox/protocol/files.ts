import { z } from 'zod';
import { base64, count, entryType, folderEntry, operation, positive } from './common.js';

/** A failure the model sees as the file tool's result: `"<path>: <reason>"`. */
const toolFailure = z.strictObject({ error: z.string() });
/** A path as the caller gave it: relative paths are under /workspace. */
const path = z.string().min(1);
const lineOrNull = positive.nullable();

/** A 2026-05 file tool that changed something and has nothing to show. */
const done = z.strictObject({ ok: z.literal(true) });

/** The answer of each 2026-05 file tool, when it succeeds. */
export const FILE_ANSWERS = {
  read_file: z.strictObject({ content: z.string() }),
  write_file: done,
  list_files: z.strictObject({ entries: z.array(folderEntry) }),
  delete_file: done,
};

export const file = operation(
  'A file tool of vocabulary 2026-05, run as the tool user (docs/contract.md §5).',
  z.strictObject({
    tool: z.enum(['read_file', 'write_file', 'list_files', 'delete_file']),
    args: z.strictObject({ path, content: z.string().optional() }),
    max_read_bytes: count.optional(),
  }),
  z.union([FILE_ANSWERS.read_file, done, FILE_ANSWERS.list_files, toolFailure]),
);

/** A match of find_by_name. */
const found = z.strictObject({ path: z.string(), type: entryType, size: count });
/** A line grep_search found. */
const grepMatch = z.strictObject({ path: z.string(), line: positive, text: z.string() });

/** The answer of each 2026-09 file tool, when it succeeds. */
export const FILE_2026_09_ANSWERS = {
  view_file: z.strictObject({
    path: z.string(),
    total_lines: count,
    start_line: count,
    end_line: count,
    content: z.string(),
    truncated: z.boolean(),
    next_content_offset: count.optional(),
  }),
  write_to_file: z.strictObject({
    ok: z.literal(true),
    path: z.string(),
    bytes_written: count,
    created: z.boolean(),
  }),
  replace_file_content: z.strictObject({
    ok: z.literal(true),
    path: z.string(),
    start_line: count,
    end_line: count,
    total_lines: count,
  }),
  list_dir: z.strictObject({
    path: z.string(),
    entries: z.array(folderEntry),
    truncated: z.boolean(),
    note: z.string().optional(),
  }),
  delete_file: z.strictObject({ ok: z.literal(true), path: z.string() }),
  find_by_name: z.strictObject({
    directory: z.string(),
    matches: z.array(found),
    truncated: z.boolean(),
    note: z.string().optional(),
  }),
  grep_search: z.strictObject({
    matches: z.array(grepMatch),
    timed_out: z.boolean(),
    truncated: z.boolean(),
    note: z.string().optional(),
    files_searched: count.optional(),
    files_skipped: z
      .strictObject({ too_large: count, binary: count, unreadable: count })
      .optional(),
  }),
};

export const file202609 = operation(
  'A file tool of vocabulary 2026-09, arguments checked and renamed to snake_case by the controller (docs/vocabularies.md).',
  z.discriminatedUnion('tool', [
    z.strictObject({
      tool: z.literal('view_file'),
      path,
      start_line: lineOrNull,
      end_line: lineOrNull,
      content_offset: count.nullable(),
      max_read_bytes: count,
      max_view_chars: positive,
    }),
    z.strictObject({
      tool: z.literal('write_to_file'),
      path,
      content: z.string(),
      overwrite: z.boolean(),
    }),
    z.strictObject({
      tool: z.literal('replace_file_content'),
      path,
      start_line: positive,
      end_line: positive,
      target_content: z.string(),
      replacement_content: z.string(),
      max_read_bytes: count,
    }),
    z.strictObject({ tool: z.literal('list_dir'), path }),
    z.strictObject({ tool: z.literal('delete_file'), path }),
    z.strictObject({
      tool: z.literal('find_by_name'),
      path,
      pattern: z.string().min(1),
      max_depth: positive.nullable(),
      max_results: positive,
    }),
    z.strictObject({
      tool: z.literal('grep_search'),
      path,
      query: z.string().min(1),
      is_regex: z.boolean(),
      max_matches: positive,
      max_read_bytes: count,
      timeout_ms: positive,
      output_cap_bytes: count,
    }),
  ]),
  z.union([...Object.values(FILE_2026_09_ANSWERS), toolFailure]),
);

/** Why the files API refused (sandbox-image/agent/workspace_files.py). */
export const filesFailureKind = z.enum([
  'escapes',
  'exists',
  'not_found',
  'is_directory',
  'not_directory',
  'not_regular',
  'not_empty',
  'too_large',
  'loop',
  'agents',
  'read_only',
  'permission',
  'no_space',
  'too_long',
  'not_archive',
  'os',
]);
const filesFailure = z.strictObject({ error_kind: filesFailureKind, error: z.string() });
/** A path relative to /workspace, checked by the controller (`""` is /workspace itself). */
const workspacePath = z.string();
const maxBytes = { max_bytes: count };
/** When an entry was last modified, and when its inode last changed (ms since the epoch). */
const times = { mtime_ms: count, ctime_ms: count };
/** An entry of a workspace folder, with its times (the SDKs' files.list shows them). */
const workspaceEntry = folderEntry.extend(times);

/** The answer of each files-API action, when it succeeds. */
export const WORKSPACE_FILES_ANSWERS = {
  get: z.union([
    z.strictObject({ type: z.literal('file'), data: base64, size: count, ...times }),
    z.strictObject({ type: z.literal('directory'), entries: z.array(workspaceEntry), ...times }),
  ]),
  put: z.strictObject({ bytes: count }),
  put_many: z.strictObject({ files: count, bytes: count }),
  delete: z.strictObject({ deleted: z.literal(true) }),
  tar: z.strictObject({ data: base64, size: count }),
  /** An uploaded zip archive as a tar archive, its members unchecked (the controller checks them). */
  zip_to_tar: z.strictObject({ data: base64, size: count }),
};

export const workspaceFiles = operation(
  'The files API (docs/environments.md, "Files"): bytes in and out of /workspace as the tool user.',
  z.discriminatedUnion('action', [
    z.strictObject({ action: z.literal('get'), path: workspacePath, ...maxBytes }),
    z.strictObject({
      action: z.literal('put'),
      path: workspacePath,
      data: base64,
      overwrite: z.boolean(),
      ...maxBytes,
    }),
    z.strictObject({
      action: z.literal('put_many'),
      overwrite: z.boolean(),
      entries: z.array(
        z.discriminatedUnion('type', [
          z.strictObject({ type: z.literal('directory'), path: workspacePath }),
          z.strictObject({ type: z.literal('file'), path: workspacePath, data: base64 }),
        ]),
      ),
      ...maxBytes,
    }),
    z.strictObject({ action: z.literal('delete'), path: workspacePath, ...maxBytes }),
    z.strictObject({ action: z.literal('tar'), path: workspacePath, ...maxBytes }),
    z.strictObject({ action: z.literal('zip_to_tar'), data: base64, ...maxBytes }),
  ]),
  z.union([...Object.values(WORKSPACE_FILES_ANSWERS), filesFailure]),
);
