import { pack } from 'tar-stream';
import type { PlacedSource } from '../config/sources.js';

/** Owners of injected files: tool code owns /workspace files; /.agents belongs to root. */
export const TOOL_UID = 1000;
export const TOOL_GID = 1000;

/**
 * A tar of sources for one area, with every parent folder as an explicit entry so that Docker
 * creates it with the right owner (folders it creates on its own would belong to root).
 */
export async function sourceArchive(
  sources: PlacedSource[],
  owner: { uid: number; gid: number },
): Promise<Buffer> {
  const archive = pack();
  const folders = new Set<string>();
  for (const source of sources) {
    const parts = source.path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const mtime = new Date();
  for (const folder of [...folders].sort()) {
    archive.entry({
      name: `${folder}/`,
      type: 'directory',
      mode: 0o755,
      uid: owner.uid,
      gid: owner.gid,
      mtime,
    });
  }
  for (const source of sources) {
    archive.entry(
      {
        name: source.path,
        mode: source.executable ? 0o755 : 0o644,
        uid: owner.uid,
        gid: owner.gid,
        mtime,
      },
      Buffer.from(source.content, 'utf8'),
    );
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
