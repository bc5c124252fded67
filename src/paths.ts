import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding hookbox's package.json, whether running from src/ (tests) or dist/ (CLI). */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'hookbox'
    ) {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('hookbox: cannot find its own package.json');
    dir = parent;
  }
}

/** hookbox's version, from its package.json (`hookbox --version`, `/healthz`). */
export function packageVersion(): string {
  return (
    JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
}

/**
 * The controller's own state folder (audit logs): `$HOOKBOX_HOME`, else `~/.hookbox`.
 */
export function hookboxHome(): string {
  return process.env.HOOKBOX_HOME ?? join(homedir(), '.hookbox');
}
