import type { ImageStore } from '../sandbox/image-store.js';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SystemError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { Logger } from '../record/logger.js';
import { contentHash, readFolder, tarOf, type ContextFile } from '../sandbox/build-context.js';
import { ensureImage, imageTags, type BuildProgress } from '../sandbox/image.js';
import { LABEL_IMAGE, LABEL_IMAGE_INPUTS } from '../sandbox/labels.js';

/** The registry base of the top-level Dockerfile (its default `BASE_IMAGE`). */
export const REGISTRY_NODE_BASE = 'node:20-bookworm-slim';

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
  hashed.push(
    ...readFolder(join(distDir, 'src'), {
      skip: (name) => name.endsWith('.map'),
      prefix: 'dist/src/',
    }),
    ...readFolder(join(root, 'sandbox-image'), {
      skip: (name) => name === '__pycache__',
      prefix: 'sandbox-image/',
    }),
    // The web console's page and code (docs/console.md), which `hookbox serve` reads at start.
    ...readFolder(join(root, 'console'), { prefix: 'console/' }),
    // The shipped templates (`full`), built on first use by the controller inside
    // (docs/templates.md).
    ...readFolder(join(root, 'templates'), { prefix: 'templates/' }),
  );
  if (options.withNode) {
    hashed.push({ path: 'node', data: readFileSync(process.execPath), mode: 0o755 });
  }
  // node_modules follows from package-lock.json, which is hashed; its files are not.
  const modules = productionPackages(root).flatMap((pkg) =>
    readFolder(join(root, pkg), { skip: (name) => name === 'node_modules', prefix: `${pkg}/` }),
  );
  return { files: [...hashed, ...modules], hash: contentHash(hashed) };
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
  client: ImageStore,
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
