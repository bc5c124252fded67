/** The workspace's files as MCP resources (docs/mcp.md, "Resources"): listed and read through the files API. */
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Environment } from '../controller/environment.js';

/** The URI prefix of a workspace file: `file:///workspace/src/app.py`. */
export const WORKSPACE_URI_PREFIX = 'file:///workspace/';

/** At most this many files are listed (a listing is for a client's picker, not a backup). */
export const MAX_LISTED_RESOURCES = 500;

/** Folders deeper than this are not walked. */
const MAX_LIST_DEPTH = 6;

/** Folders no client wants listed file by file. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', '__pycache__', '.venv']);

/** The workspace's files, breadth first, up to {@link MAX_LISTED_RESOURCES}. */
export async function listWorkspaceResources(environment: Environment): Promise<Resource[]> {
  const out: Resource[] = [];
  const folders: { path: string; depth: number }[] = [{ path: '', depth: 0 }];
  while (folders.length > 0 && out.length < MAX_LISTED_RESOURCES) {
    const folder = folders.shift()!;
    const found = await environment.files.read(folder.path);
    if (found.type !== 'directory') continue;
    for (const entry of found.entries) {
      const path = folder.path === '' ? entry.name : `${folder.path}/${entry.name}`;
      if (entry.type === 'directory') {
        if (folder.depth < MAX_LIST_DEPTH && !SKIPPED_FOLDERS.has(entry.name))
          folders.push({ path, depth: folder.depth + 1 });
      } else if (entry.type === 'file' && out.length < MAX_LISTED_RESOURCES) {
        out.push({
          uri: `${WORKSPACE_URI_PREFIX}${encodeURI(path)}`,
          name: path,
          size: entry.size,
        });
      }
    }
  }
  return out;
}

/** One workspace file: text when it is UTF-8, else base64 bytes. */
export async function readWorkspaceResource(
  environment: Environment,
  uri: string,
): Promise<ReadResourceResult> {
  if (!uri.startsWith(WORKSPACE_URI_PREFIX))
    throw new McpError(
      ErrorCode.InvalidParams,
      `uri: must start with ${WORKSPACE_URI_PREFIX} (a file of the workspace)`,
    );
  const path = decodeURI(uri.slice(WORKSPACE_URI_PREFIX.length));
  const found = await environment.files.read(path);
  if (found.type !== 'file')
    throw new McpError(ErrorCode.InvalidParams, `uri: ${uri} is a folder, not a file`);
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return { contents: [{ uri, mimeType: 'text/plain', text: text.decode(found.data) }] };
  } catch {
    return {
      contents: [
        { uri, mimeType: 'application/octet-stream', blob: found.data.toString('base64') },
      ],
    };
  }
}
