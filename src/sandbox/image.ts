import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pack } from 'tar-stream';
import { SystemError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { Logger } from '../record/logger.js';
import type { ContainerClient } from './container-client.js';
import { SANDBOX_ALIAS } from '../templates/dockerfile.js';
import { LABEL_IMAGE, LABEL_IMAGE_INPUTS } from './labels.js';

/** The files an image is built from, read from sandbox-image/, in a stable order. */
export function imageInputs(): { path: string; data: Buffer; mode: number }[] {
  const dir = join(packageRoot(), 'sandbox-image');
  const files: { path: string; data: Buffer; mode: number }[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      if (name === '__pycache__') continue;
      const full = join(folder, name);
      const info = statSync(full);
      if (info.isDirectory()) walk(full);
      else
        files.push({
          path: relative(dir, full),
          data: readFileSync(full),
          mode: info.mode & 0o777,
        });
    }
  };
  walk(dir);
  return files;
}

function hashOf(files: { path: string; data: Buffer }[], extra = ''): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file.path).update('\0').update(file.data).update('\0');
  hash.update(extra);
  return hash.digest('hex').slice(0, 12);
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
  const base = `hookbox/base:bookworm-${hashOf(baseInputs)}`;
  return { base, sandbox: `hookbox/sandbox:${hashOf(inputs, base)}` };
}

async function tarOf(files: { path: string; data: Buffer; mode: number }[]): Promise<Buffer> {
  const archive = pack();
  for (const file of files)
    archive.entry({ name: file.path, mode: file.mode, mtime: new Date(0) }, file.data);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface ImageStatus {
  tags: ImageTags;
  basePresent: boolean;
  sandboxPresent: boolean;
}

export async function imageStatus(client: ContainerClient): Promise<ImageStatus> {
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
  client: ContainerClient,
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
async function pointAlias(client: ContainerClient, sandbox: string): Promise<void> {
  const [alias, current] = await Promise.all([
    client.inspectImage(SANDBOX_ALIAS),
    client.inspectImage(sandbox),
  ]);
  if (current && alias?.id !== current.id) await client.tagImage(sandbox, SANDBOX_ALIAS);
}
