import type { ImageStore } from './image-store.js';
import { execa } from 'execa';
import { join } from 'node:path';
import { SystemError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { Logger } from '../record/logger.js';
import { contentHash, readFolder, tarOf, type ContextFile } from './build-context.js';
import { LABEL_IMAGE, LABEL_IMAGE_INPUTS } from './labels.js';

/** The image name a template's Dockerfile starts from to build on the hookbox sandbox image. */
export const SANDBOX_ALIAS = 'hookbox/sandbox:latest';

/** The files an image is built from, read from sandbox-image/, in a stable order. */
export function imageInputs(): ContextFile[] {
  return readFolder(join(packageRoot(), 'sandbox-image'), {
    skip: (name) => name === '__pycache__',
  });
}

export interface ImageTags {
  /** Built from Debian's packages by debootstrap: `hookbox/base:bookworm-<hash>`. */
  base: string;
  /** The sandbox image on top of it: `hookbox/sandbox:<hash>`. */
  sandbox: string;
}

/** The tags the current inputs give; a change to any input gives a new tag, hence a rebuild. */
export function imageTags(): ImageTags {
  const inputs = imageInputs();
  const baseInputs = inputs.filter(
    (file) => file.path === 'base-packages.txt' || file.path === 'build-base.sh',
  );
  const base = `hookbox/base:bookworm-${contentHash(baseInputs)}`;
  return { base, sandbox: `hookbox/sandbox:${contentHash(inputs, base)}` };
}

export interface ImageStatus {
  tags: ImageTags;
  basePresent: boolean;
  sandboxPresent: boolean;
}

export async function imageStatus(client: ImageStore): Promise<ImageStatus> {
  const tags = imageTags();
  const [base, sandbox] = await Promise.all([
    client.imageLabels(tags.base),
    client.imageLabels(tags.sandbox),
  ]);
  return { tags, basePresent: base !== undefined, sandboxPresent: sandbox !== undefined };
}

/**
 * Finds the current sandbox image, or builds it: first the base from Debian's packages
 * (sandbox-image/build-base.sh: debootstrap + docker import), then sandbox-image/Dockerfile on it.
 * Both are cached by content hash, so only a change of their inputs rebuilds them.
 */
/**
 * What a build reports: a `stage` (building the base, building the sandbox image) and, within it,
 * each `step` (a debootstrap line, a Dockerfile step). A terminal shows both on one progress line;
 * logs keep only the stages (src/cli/progress.ts).
 */
export type BuildProgress = (message: string, kind?: 'stage' | 'step') => void;

export async function ensureImage(
  client: ImageStore,
  logger: Logger,
  options: { onProgress?: BuildProgress } = {},
): Promise<string> {
  const status = await imageStatus(client);
  const { tags } = status;
  if (status.sandboxPresent) {
    await pointAlias(client, tags.sandbox);
    return tags.sandbox;
  }
  const progress = options.onProgress ?? (() => {});
  if (!status.basePresent) {
    progress(
      `building base image ${tags.base} from Debian's packages (debootstrap, about a minute)`,
    );
    const script = join(packageRoot(), 'sandbox-image', 'build-base.sh');
    const child = execa('bash', [script, tags.base], { reject: false, all: true });
    child.all?.on('data', (chunk: Buffer) => {
      const line = chunk.toString().trim().split('\n').at(-1)?.trim();
      if (line) progress(line, 'step');
    });
    const run = await child;
    if (run.exitCode !== 0) {
      throw new SystemError(
        'image_build_failed',
        `building the base image failed:\n${String(run.all ?? '').slice(-4000)}`,
      );
    }
  }
  progress(`building sandbox image ${tags.sandbox}`);
  logger.info({ image: tags.sandbox }, 'building sandbox image');
  const context = await tarOf(imageInputs());
  try {
    await client.buildImage(
      context,
      tags.sandbox,
      { BASE_IMAGE: tags.base },
      {
        [LABEL_IMAGE]: 'sandbox',
        [LABEL_IMAGE_INPUTS]: tags.sandbox.split(':')[1]!,
      },
      { onOutput: (line) => line.startsWith('Step ') && progress(line.trim(), 'step') },
    );
  } catch (error) {
    throw new SystemError(
      'image_build_failed',
      `building ${tags.sandbox} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  await pointAlias(client, tags.sandbox);
  return tags.sandbox;
}

/**
 * Points `hookbox/sandbox:latest` at the current image, so that a template's Dockerfile can say
 * `FROM hookbox/sandbox:latest` without knowing the hash (docs/templates.md). `hookbox template
 * build` pins the exact tag anyway; the alias serves a plain `docker build` of the same file.
 */
async function pointAlias(client: ImageStore, sandbox: string): Promise<void> {
  const [alias, current] = await Promise.all([
    client.inspectImage(SANDBOX_ALIAS),
    client.inspectImage(sandbox),
  ]);
  if (current && alias?.id !== current.id) await client.tagImage(sandbox, SANDBOX_ALIAS);
}
