import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pack } from 'tar-stream';
import { SystemError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { Logger } from '../record/logger.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import { ensureImage, imageTags, type BuildProgress } from '../sandbox/image.js';
import { LABEL_IMAGE, LABEL_IMAGE_INPUTS } from '../sandbox/labels.js';

/** The registry base of the top-level Dockerfile (its default `BASE_IMAGE`). */
export const REGISTRY_NODE_BASE = 'node:20-bookworm-slim';

interface ContextFile {
  path: string;
  data?: Buffer;
  mode: number;
  linkname?: string;
}

function walk(root: string, dir: string, out: ContextFile[], skip: (name: string) => boolean) {
  for (const name of readdirSync(dir).sort()) {
    if (skip(name)) continue;
    const full = join(dir, name);
    const info = lstatSync(full);
    const path = relative(root, full);
    if (info.isSymbolicLink()) out.push({ path, mode: 0o777, linkname: readlinkSync(full) });
    else if (info.isDirectory()) walk(root, full, out, skip);
    else if (info.isFile()) out.push({ path, data: readFileSync(full), mode: info.mode & 0o777 });
  }
}

/** The production packages of package-lock.json (`dev: true` ones left out) that are installed. */
export function productionPackages(root: string): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev && !entry.link)
    .map(([path]) => path)
    .filter((path) => existsSync(join(root, path)))
    .sort();
}

/** The compiled tree this code runs from (`…/dist` when it is `…/dist/src/server/…`), if compiled. */
function runningDist(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, '..', 'cli', 'main.js')) ? join(here, '..', '..') : undefined;
}

/**
 * The build context of the controller image: the Dockerfile, package.json and lock, `bin/`, the
 * compiled `dist/src`, the production `node_modules`, `console/`, `sandbox-image/` (so the controller
 * inside computes the same sandbox image tag as the host), `templates/` (the shipped templates), and —
 * for a base without Node.js — the host's
 * `node` binary at the top, which the Dockerfile installs.
 */
export function controllerImageContext(options: {
  /**
   * Folder holding the compiled `src/` (`tsc -p tsconfig.build.json` output).
   * @default the compiled tree this code runs from, else `<root>/dist`
   */
  distDir?: string;
  /** Put the host's node binary in the context (for a base without Node.js). */
  withNode: boolean;
}): { files: ContextFile[]; hash: string } {
  const root = packageRoot();
  const distDir = options.distDir ?? runningDist() ?? join(root, 'dist');
  if (!existsSync(join(distDir, 'src', 'cli', 'main.js'))) {
    throw new SystemError(
      'image_build_failed',
      `no compiled CLI under ${distDir}/src; run \`npm run build\` first`,
    );
  }
  const hashed: ContextFile[] = [];
  const file = (path: string, from = join(root, path)) =>
    hashed.push({ path, data: readFileSync(from), mode: lstatSync(from).mode & 0o777 });
  file('Dockerfile');
  file('package.json');
  file('package-lock.json');
  file('bin/hookbox.js');
  const dist: ContextFile[] = [];
  walk(join(distDir, 'src'), join(distDir, 'src'), dist, (name) => name.endsWith('.map'));
  hashed.push(...dist.map((entry) => ({ ...entry, path: `dist/src/${entry.path}` })));
  const sandbox: ContextFile[] = [];
  walk(
    join(root, 'sandbox-image'),
    join(root, 'sandbox-image'),
    sandbox,
    (name) => name === '__pycache__',
  );
  hashed.push(...sandbox.map((entry) => ({ ...entry, path: `sandbox-image/${entry.path}` })));
  // The web console's page and code (docs/console.md), which `hookbox serve` reads at start.
  const consoleFiles: ContextFile[] = [];
  walk(join(root, 'console'), join(root, 'console'), consoleFiles, () => false);
  hashed.push(...consoleFiles.map((entry) => ({ ...entry, path: `console/${entry.path}` })));
  // The shipped templates (`full`), built on first use by the controller inside (docs/templates.md).
  const templates: ContextFile[] = [];
  walk(join(root, 'templates'), join(root, 'templates'), templates, () => false);
  hashed.push(...templates.map((entry) => ({ ...entry, path: `templates/${entry.path}` })));
  if (options.withNode) {
    hashed.push({ path: 'node', data: readFileSync(process.execPath), mode: 0o755 });
  }
  const hash = createHash('sha256');
  for (const entry of hashed) {
    hash.update(entry.path).update('\0');
    if (entry.data) hash.update(entry.data);
    hash.update('\0');
  }
  // node_modules follows from package-lock.json, which is hashed; its files are not.
  const modules: ContextFile[] = [];
  for (const pkg of productionPackages(root)) {
    const nested: ContextFile[] = [];
    walk(join(root, pkg), join(root, pkg), nested, (name) => name === 'node_modules');
    modules.push(...nested.map((entry) => ({ ...entry, path: `${pkg}/${entry.path}` })));
  }
  return { files: [...hashed, ...modules], hash: hash.digest('hex').slice(0, 12) };
}

async function tarOf(files: ContextFile[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of archive) chunks.push(chunk as Buffer);
  })();
  for (const entry of files) {
    if (entry.linkname !== undefined) {
      archive.entry({
        name: entry.path,
        type: 'symlink',
        linkname: entry.linkname,
        mtime: new Date(0),
      });
    } else {
      await new Promise<void>((resolve, reject) =>
        archive.entry(
          { name: entry.path, mode: entry.mode, mtime: new Date(0) },
          entry.data!,
          (error) => (error ? reject(error) : resolve()),
        ),
      );
    }
  }
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

export interface ControllerImageOptions {
  /**
   * `registry`: `node:20-bookworm-slim` (must be present locally or pullable); `local`: the
   * sandbox's Debian base `hookbox/base:*` (no registry) plus the host's node binary; or any image
   * tag. @default `registry` when node:20-bookworm-slim is present locally, else `local`
   */
  base?: 'registry' | 'local' | string;
  distDir?: string;
  onProgress?: BuildProgress;
}

/**
 * Builds (or finds cached, by content hash) the controller image `hookbox/controller:<hash>` from
 * the top-level Dockerfile. Makes sure the sandbox image exists first: the controller inside
 * finds it on the host's engine by the same tag.
 */
export async function ensureControllerImage(
  client: ContainerClient,
  logger: Logger,
  options: ControllerImageOptions = {},
): Promise<string> {
  await ensureImage(client, logger, options.onProgress ? { onProgress: options.onProgress } : {});
  let base = options.base;
  if (base === undefined)
    base = (await client.imageLabels(REGISTRY_NODE_BASE)) !== undefined ? 'registry' : 'local';
  const baseImage =
    base === 'registry' ? REGISTRY_NODE_BASE : base === 'local' ? imageTags().base : base;
  const withNode = base === 'local';
  const { files, hash } = controllerImageContext({
    withNode,
    ...(options.distDir ? { distDir: options.distDir } : {}),
  });
  const tag = `hookbox/controller:${createHash('sha256').update(hash).update(baseImage).digest('hex').slice(0, 12)}`;
  if ((await client.imageLabels(tag)) !== undefined) return tag;
  options.onProgress?.(`building controller image ${tag} on ${baseImage}`);
  logger.info({ image: tag, base: baseImage }, 'building controller image');
  try {
    await client.buildImage(
      await tarOf(files),
      tag,
      { BASE_IMAGE: baseImage },
      { [LABEL_IMAGE]: 'controller', [LABEL_IMAGE_INPUTS]: tag.split(':')[1]! },
      { onOutput: (line) => line.startsWith('Step ') && options.onProgress?.(line.trim(), 'step') },
    );
  } catch (error) {
    throw new SystemError(
      'image_build_failed',
      `building ${tag} failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return tag;
}
