import { UserError } from '../errors/index.js';
import type { ImageStore, ImageSummary } from '../sandbox/image-store.js';
import { LABEL_IMAGE } from '../sandbox/labels.js';

/** Template images carry these labels (set by `hookbox template build`, never by the Dockerfile). */
export const LABEL_TEMPLATE = 'dev.hookbox.template';
/** The sandbox image (`hookbox/sandbox:<hash>`) the template was built on: stale when it differs. */
export const LABEL_TEMPLATE_BASE = 'dev.hookbox.template-base';
/** Hash of the build context, the sandbox image and hookbox's seal: same inputs, no rebuild. */
export const LABEL_TEMPLATE_INPUTS = 'dev.hookbox.template-inputs';
/** The Dockerfile it was built from, so `hookbox doctor` can say what to rebuild. */
export const LABEL_TEMPLATE_SOURCE = 'dev.hookbox.template-source';

/** The template every environment gets when it names none: the sandbox image itself. */
export const DEFAULT_TEMPLATE = 'default';

const NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

/** A template's name is an image tag: lowercase letters, digits, `_`, `.` and `-`, 1 to 63 of them. */
export function checkTemplateName(name: string, field = 'name'): string {
  if (!NAME.test(name))
    throw new UserError(
      'invalid_template',
      `${field} ${JSON.stringify(name)}: a template name is 1 to 63 of a-z, 0-9, "_", "." and "-", starting with a letter or digit`,
      { details: { field } },
    );
  return name;
}

/** The image name of a template. */
export const templateTag = (name: string): string => `hookbox/template:${name}`;

/** A built template, as `hookbox template list` shows it. */
export interface TemplateInfo {
  name: string;
  /** The image: `hookbox/template:<name>` (or the sandbox image for `default`). */
  image: string;
  /** The sandbox image it was built on. */
  base: string;
  /** True when hookbox's sandbox image has changed since: `hookbox template build` rebuilds it. */
  stale: boolean;
  source: string;
  sizeBytes: number;
  created: string;
}

export function templateInfoOf(image: ImageSummary, currentSandbox: string): TemplateInfo {
  const name = image.labels[LABEL_TEMPLATE] ?? '';
  const base = image.labels[LABEL_TEMPLATE_BASE] ?? '';
  return {
    name,
    image: templateTag(name),
    base,
    stale: base !== currentSandbox,
    source: image.labels[LABEL_TEMPLATE_SOURCE] ?? '',
    sizeBytes: image.sizeBytes,
    created: image.created,
  };
}

/** Every built template on the engine, by name. */
export async function listTemplates(
  client: ImageStore,
  currentSandbox: string,
): Promise<TemplateInfo[]> {
  const images = await client.listImages([`${LABEL_IMAGE}=template`]);
  return images
    .filter((image) => image.tags.some((tag) => tag.startsWith('hookbox/template:')))
    .map((image) => templateInfoOf(image, currentSandbox))
    .filter((info) => info.name !== '')
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** One built template, or undefined. */
export async function findTemplate(
  client: ImageStore,
  name: string,
  currentSandbox: string,
): Promise<TemplateInfo | undefined> {
  const image = await client.inspectImage(templateTag(name));
  if (!image || image.labels[LABEL_TEMPLATE] !== name) return undefined;
  return templateInfoOf(image, currentSandbox);
}
