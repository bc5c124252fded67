// Build contexts: the files an image is built from (the sandbox image, a template, the controller
// image), read in a stable order, hashed for the image's tag or inputs label, and packed as the tar
// the engine builds from (docs/templates.md, docs/deployment.md).
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pack } from 'tar-stream';

/** One entry of a build context; a symlink has `linkname` and no content, as `docker build` sends it. */
export interface ContextFile {
  path: string;
  data: Buffer;
  mode: number;
  linkname?: string;
}

export interface ReadFolderOptions {
  /** Names (of files or folders, at any depth) left out. */
  skip?: (name: string) => boolean;
  /** Stop reading past this many bytes of content, with `tooLarge()`'s error. */
  maxBytes?: number;
  tooLarge?: () => Error;
  /** Put before every path (`sandbox-image/…`). */
  prefix?: string;
}

/** The regular files and symlinks under `root`, sorted by name at each level. */
export function readFolder(root: string, options: ReadFolderOptions = {}): ContextFile[] {
  const files: ContextFile[] = [];
  const prefix = options.prefix ?? '';
  let total = 0;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (options.skip?.(name)) continue;
      const full = join(dir, name);
      const info = lstatSync(full);
      const path = prefix + relative(root, full);
      if (info.isSymbolicLink())
        files.push({ path, data: Buffer.alloc(0), mode: 0o777, linkname: readlinkSync(full) });
      else if (info.isDirectory()) walk(full);
      else if (info.isFile()) {
        total += info.size;
        if (options.maxBytes !== undefined && total > options.maxBytes)
          throw options.tooLarge?.() ?? new Error(`${root}: over ${options.maxBytes} bytes`);
        files.push({ path, data: readFileSync(full), mode: info.mode & 0o777 });
      }
    }
  };
  walk(root);
  return files;
}

/** 12 hex digits of sha256 over each entry's path and content, then `extra`. */
export function contentHash(files: readonly ContextFile[], extra = ''): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file.path).update('\0').update(file.data).update('\0');
  hash.update(extra);
  return hash.digest('hex').slice(0, 12);
}

/** The entries as a tar archive, every mtime 0 so that equal inputs give equal contexts. */
export async function tarOf(files: readonly ContextFile[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  // Read while writing: a context larger than the stream's buffer would otherwise stall.
  const done = (async () => {
    for await (const chunk of archive) chunks.push(chunk as Buffer);
  })();
  for (const file of files) {
    if (file.linkname !== undefined) {
      archive.entry({
        name: file.path,
        type: 'symlink',
        linkname: file.linkname,
        mtime: new Date(0),
      });
      continue;
    }
    await new Promise<void>((resolve, reject) =>
      archive.entry({ name: file.path, mode: file.mode, mtime: new Date(0) }, file.data, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}
