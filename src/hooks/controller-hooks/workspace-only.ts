import { posix } from 'node:path';
import { UserError } from '../../errors/errors.js';
import type { ToolCall } from '../../tools/types.js';
import { deny, type PolicyRule } from './policy-rule.js';

/** Where tool code works; relative paths in tool arguments are relative to it (docs/contract.md §5). */
const WORKSPACE_ROOT = '/workspace';

/**
 * The path arguments of each file tool of both vocabularies (2026-05 and 2026-09). A tool with several
 * names for its path (`delete_file`) is checked on every one it is given.
 * TODO: read this from the tool registry once it exists, so a new tool cannot be missed here.
 */
export const FILE_TOOL_PATH_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['path'],
  write_file: ['path'],
  list_files: ['path'],
  delete_file: ['path', 'TargetFile', 'AbsolutePath'],
  view_file: ['AbsolutePath'],
  write_to_file: ['TargetFile'],
  replace_file_content: ['TargetFile'],
  list_dir: ['DirectoryPath'],
  find_by_name: ['SearchDirectory'],
  grep_search: ['SearchPath'],
};

/**
 * Deny rules that keep the file tools to paths under `allowedPaths` (an allowed path itself included).
 * Paths are normalised first, so `..` cannot climb out, and relative ones resolve against /workspace.
 * A call whose path argument is missing, empty, not a string or contains a NUL is denied: an argument
 * that cannot be checked is not allowed. The check is lexical: symbolic links inside the workspace are
 * not followed, so this narrows what the model asks for while the sandbox's filesystem (docs/contract.md §2)
 * stays the boundary. `code_execution` is not a file tool; pair this with `confirmCodeExecution` or a
 * deny rule for it.
 * @param allowedPaths absolute, or relative to /workspace.
 */
export function workspaceOnly(allowedPaths: readonly string[]): PolicyRule[] {
  if (!Array.isArray(allowedPaths) || allowedPaths.length === 0) {
    throw new UserError('invalid_argument', 'workspaceOnly: give at least one allowed path', {
      details: { field: 'allowedPaths' },
    });
  }
  const roots = allowedPaths.map((allowedPath: unknown, index) => {
    if (typeof allowedPath !== 'string' || allowedPath === '' || allowedPath.includes('\0')) {
      throw new UserError(
        'invalid_argument',
        `workspaceOnly: allowedPaths[${index}] must be a non-empty path`,
        {
          details: { field: `allowedPaths[${index}]` },
        },
      );
    }
    return resolveToolPath(allowedPath);
  });
  const reason = `file tools may only use paths under ${roots.join(', ')}`;
  return Object.entries(FILE_TOOL_PATH_ARGUMENTS).map(([tool, argumentNames]) =>
    deny(tool, { when: (call) => !pathsAreInside(call, argumentNames, roots), reason }),
  );
}

function pathsAreInside(
  call: ToolCall,
  argumentNames: readonly string[],
  roots: readonly string[],
): boolean {
  const given = argumentNames.filter((name) => call.args[name] !== undefined);
  if (given.length === 0) return false;
  return given.every((name) => {
    const value = call.args[name];
    if (typeof value !== 'string' || value === '' || value.includes('\0')) return false;
    const resolved = resolveToolPath(value);
    return roots.some((root) => isInside(resolved, root));
  });
}

/** Resolves as the sandbox does: relative to /workspace, with `.` and `..` collapsed. */
function resolveToolPath(path: string): string {
  return posix.resolve(WORKSPACE_ROOT, path);
}

function isInside(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}
