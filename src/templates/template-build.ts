import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { SystemError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { imagesOf, type Backend } from '../sandbox/backend.js';
import { contentHash, readFolder, tarOf, type ContextFile } from '../sandbox/build-context.js';
import { imageInputs } from '../sandbox/image.js';
import { LABEL_IMAGE } from '../sandbox/labels.js';
import { checkDockerfile, pinSandboxFrom, type DockerfileCheck } from './dockerfile.js';
import { AGENT_ENTRYPOINT, configProblems, selfCheck } from './template-check.js';
import {
  checkTemplateName,
  findTemplate,
  LABEL_TEMPLATE,
  LABEL_TEMPLATE_BASE,
  LABEL_TEMPLATE_INPUTS,
  LABEL_TEMPLATE_SOURCE,
  templateTag,
  type TemplateInfo,
} from './template-image.js';

/** What hookbox appends to every template's Dockerfile (docs/templates.md, "What hookbox adds"). */
const SEAL = [
  '',
  '# Added by hookbox (docs/templates.md): run as root, strip setuid/setgid bits and file',
  '# capabilities, check the users and paths the sandbox needs, and start the sandbox agent.',
  'USER 0:0',
  'WORKDIR /',
  'RUN ["/usr/bin/python3", "-I", "-B", "/opt/hookbox/agent/template_seal.py"]',
  `ENTRYPOINT ${JSON.stringify(AGENT_ENTRYPOINT)}`,
  'CMD []',
  '',
].join('\n');

/** Largest build context sent to the engine. */
const MAX_CONTEXT_BYTES = 256 * 1024 * 1024;

export interface TemplateBuildOptions {
  name: string;
  /** A folder holding a `Dockerfile`, or the Dockerfile itself (its folder is the context). */
  path: string;
  /** Rebuild even when the inputs have not changed. @default false */
  force?: boolean;
  onProgress?: (message: string) => void;
}

export interface TemplateBuildResult {
  template: TemplateInfo;
  /** False when an image with the same inputs was there already. */
  built: boolean;
  /** What hookbox overrode (USER) or removed (setuid bits), one line each. */
  notices: string[];
}

/** The build context under `folder` (`.git` left out), refused past MAX_CONTEXT_BYTES. */
function readContext(folder: string, display: string): ContextFile[] {
  return readFolder(folder, {
    skip: (name) => name === '.git',
    maxBytes: MAX_CONTEXT_BYTES,
    tooLarge: () =>
      new UserError(
        'invalid_template',
        `${display}: the build context is over ${MAX_CONTEXT_BYTES >> 20} MiB`,
        { details: { field: 'path' } },
      ),
  });
}

/** A path as messages show it: relative to the working folder when it is under it. */
function displayOf(file: string): string {
  const near = relative(process.cwd(), file);
  return near && !near.startsWith('..') ? near : file;
}

/** Where the Dockerfile and the context are: `DIR` (DIR/Dockerfile) or `path/to/Dockerfile`. */
function locate(path: string): { file: string; context: string; display: string } {
  const full = resolve(path);
  if (!existsSync(full))
    throw new UserError('invalid_template', `${path}: no such file or folder`, {
      details: { field: 'path' },
    });
  if (statSync(full).isDirectory()) {
    const file = join(full, 'Dockerfile');
    if (!existsSync(file))
      throw new UserError('invalid_template', `${path}: the folder holds no Dockerfile`, {
        details: { field: 'path' },
      });
    return { file, context: full, display: displayOf(file) };
  }
  return { file: full, context: dirname(full), display: displayOf(full) };
}

/**
 * Which instruction a failed build stopped at: the classic builder announces each as
 * `Step N/M : …`, counting every instruction of the Dockerfile in order (the ARGs before the first
 * FROM included).
 */
function failedStep(output: string[]): number | undefined {
  for (let index = output.length - 1; index >= 0; index--) {
    const step = /^Step (\d+)\/\d+ :/.exec(output[index]!);
    if (step) return Number(step[1]);
  }
  return undefined;
}

/** The error for a build the engine refused: the Dockerfile line if it was the user's, else the seal's findings. */
function buildError(
  error: unknown,
  output: string[],
  check: DockerfileCheck,
  display: string,
  userSteps: number,
): UserError {
  const message = (error as Error).message;
  const step = failedStep(output);
  const tail = output.slice(-15).join('\n');
  if (step !== undefined && step <= userSteps) {
    const instruction = check.instructions[step - 1];
    if (instruction)
      return new UserError(
        'invalid_template',
        `${display}:${instruction.line}: ${instruction.keyword} failed: ${message}\n${tail}`,
        { details: { field: instruction.keyword, file: display, line: instruction.line } },
      );
  }
  const findings = output
    .filter((line) => line.startsWith('hookbox: '))
    .map((line) => line.slice(9));
  if (findings.length > 0)
    return new UserError(
      'invalid_template',
      `${display}: the image breaks what the sandbox needs:\n  ${findings.join('\n  ')}`,
      { details: { field: 'image', file: display } },
    );
  return new UserError('invalid_template', `${display}: the build failed: ${message}\n${tail}`, {
    details: { field: 'path', file: display },
  });
}

/**
 * Builds a template (docs/templates.md): checks the Dockerfile, builds it with hookbox's seal
 * appended (on the sandbox image: the alias pinned to the current content tag; on another Debian or
 * Ubuntu image: sandbox-image/Dockerfile on top of it, which adds python3, tini, the users and the
 * agent), checks the image's configuration, runs the hardening self-check in a real environment
 * made from it, and only then names it `hookbox/template:NAME`. Same inputs as the existing image:
 * nothing is built.
 */
export async function buildTemplate(
  backend: Backend,
  logger: Logger,
  sandboxTag: string,
  options: TemplateBuildOptions,
): Promise<TemplateBuildResult> {
  const name = checkTemplateName(options.name);
  const client = imagesOf(backend, `building the template ${name}`, 'template');
  const progress = options.onProgress ?? (() => {});
  const { file, context, display } = locate(options.path);
  const text = readFileSync(file, 'utf8');
  const check = checkDockerfile(text, display);
  const files = readContext(context, display);
  const dockerfileName = relative(context, file);
  const inputs = contentHash(files, `${sandboxTag}\0${SEAL}`);

  const existing = await findTemplate(client, name, sandboxTag);
  const existingImage = existing && (await client.inspectImage(templateTag(name)));
  if (!options.force && existingImage?.labels[LABEL_TEMPLATE_INPUTS] === inputs)
    return { template: existing!, built: false, notices: check.notices };

  const labels = {
    [LABEL_IMAGE]: 'template',
    [LABEL_TEMPLATE]: name,
    [LABEL_TEMPLATE_BASE]: sandboxTag,
    [LABEL_TEMPLATE_INPUTS]: inputs,
    [LABEL_TEMPLATE_SOURCE]: file,
  };
  // Per build, so that two builds of one name (two processes) never remove each other's images.
  const nonce = randomBytes(4).toString('hex');
  const candidate = `hookbox/template-candidate:${name}-${nonce}`;
  const stage = `hookbox/template-stage:${name}-${nonce}`;
  const output: string[] = [];
  const onOutput = (raw: string) => {
    // The engine colours a RUN's stderr for terminals.
    // eslint-disable-next-line no-control-regex
    const line = raw.replace(/\u001b\[[0-9;]*m/g, '');
    output.push(line);
    if (/^Step \d+\/\d+ :/.test(line)) progress(line);
  };
  const userSteps = check.instructions.length;
  try {
    if (check.onSandbox) {
      progress(`building template ${name} on ${sandboxTag}`);
      const dockerfile = pinSandboxFrom(text, check, sandboxTag) + SEAL;
      const sent = files.filter((entry) => entry.path !== dockerfileName);
      sent.push({ path: dockerfileName, data: Buffer.from(dockerfile), mode: 0o644 });
      await client
        .buildImage(await tarOf(sent), candidate, {}, labels, {
          dockerfile: dockerfileName,
          onOutput,
        })
        .catch((error: unknown) => {
          throw buildError(error, output, check, display, userSteps);
        });
    } else {
      // Another base: the user's image first, then hookbox's agent layer on top of it.
      progress(`building template ${name} from ${check.finalFrom.args} (needs a registry)`);
      await client
        .buildImage(await tarOf(files), stage, {}, {}, { dockerfile: dockerfileName, onOutput })
        .catch((error: unknown) => {
          throw buildError(error, output, check, display, userSteps);
        });
      progress(`adding hookbox's agent layer to ${name}`);
      output.length = 0;
      const layer = imageInputs().map((entry) =>
        entry.path === 'Dockerfile'
          ? { ...entry, data: Buffer.concat([entry.data, Buffer.from(SEAL)]) }
          : entry,
      );
      await client
        .buildImage(await tarOf(layer), candidate, { BASE_IMAGE: stage }, labels, { onOutput })
        .catch((error: unknown) => {
          throw buildError(error, output, check, display, 0);
        });
    }
    const notices = [
      ...check.notices,
      ...output
        .filter((line) => line.startsWith('hookbox: '))
        .map((line) => `${display}: ${line.slice(9)}`),
    ];
    const image = await client.inspectImage(candidate);
    if (!image)
      throw new SystemError('image_build_failed', `${candidate} is missing after its build`);
    const problems = configProblems(image);
    if (problems.length === 0) {
      progress(`checking template ${name} in a hardened environment`);
      problems.push(...(await selfCheck(backend.runtime, logger, candidate)));
    }
    if (problems.length > 0)
      throw new UserError(
        'invalid_template',
        `${display}: template ${name} fails the sandbox's checks:\n  ${problems.join('\n  ')}`,
        { details: { field: 'image', file: display } },
      );
    await client.tagImage(candidate, templateTag(name));
    // The image it replaces goes (unless an environment still runs on it).
    if (existingImage && existingImage.id !== image.id)
      await client.removeImage(existingImage.id).catch(() => {});
    const template = await findTemplate(client, name, sandboxTag);
    if (!template) throw new SystemError('image_build_failed', `${templateTag(name)} is missing`);
    return { template, built: true, notices };
  } finally {
    await client.removeImage(candidate).catch(() => {});
    await client.removeImage(stage).catch(() => {});
  }
}
