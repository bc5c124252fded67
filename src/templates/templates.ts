import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SystemError, UserError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { Logger } from '../record/logger.js';
import { imagesOf, type Backend } from '../sandbox/backend.js';
import { buildTemplate } from './template-build.js';
import {
  checkTemplateName,
  DEFAULT_TEMPLATE,
  findTemplate,
  listTemplates,
  templateTag,
} from './template-image.js';

/** The templates hookbox ships (besides `default`), by name: folders of templates/ holding a Dockerfile. */
export function shippedTemplates(): Record<string, string> {
  const root = join(packageRoot(), 'templates');
  const shipped: Record<string, string> = {};
  if (!existsSync(root)) return shipped;
  for (const name of readdirSync(root).sort())
    if (existsSync(join(root, name, 'Dockerfile'))) shipped[name] = join(root, name);
  return shipped;
}

const RESOLVED_FOR_MS = 10_000;

/**
 * Which image an environment of a template runs (docs/templates.md, "Choosing one"): `default` is
 * the sandbox image itself; a shipped template (`full`) is built on first use and rebuilt when the
 * sandbox image changed; a user's template must have been built with `hookbox template build`, and
 * on this hookbox's sandbox image — a stale one is refused, naming the command that rebuilds it.
 */
export class Templates {
  /**
   * Names resolved lately: handing out a pooled environment should cost no engine call. Short-lived,
   * so that a template removed or rebuilt elsewhere is noticed.
   */
  private readonly resolved = new Map<string, { image: string; until: number }>();
  /** Builds in progress, so that concurrent first uses build once. */
  private readonly building = new Map<string, Promise<string>>();

  constructor(
    /** Templates other than `default` need its image store (docs/templates.md, "Backends"). */
    private readonly backend: Backend,
    private readonly logger: Logger,
    /** The current sandbox image (`hookbox/sandbox:<hash>`). */
    readonly sandboxImage: string,
    private readonly onProgress?: (message: string) => void,
  ) {}

  /**
   * The names an environment may ask for: default, the shipped ones, and those built here; only
   * default on a backend without an image store.
   */
  async known(): Promise<string[]> {
    if (!this.backend.images) return [DEFAULT_TEMPLATE];
    const built = await listTemplates(this.backend.images, this.sandboxImage);
    return [
      ...new Set([
        DEFAULT_TEMPLATE,
        ...Object.keys(shippedTemplates()),
        ...built.map((template) => template.name),
      ]),
    ];
  }

  /**
   * The image for a template name (undefined: `default`). An unknown name is the caller's mistake
   * and the message lists the known ones; `field` is where the name came from (`template`,
   * `environment.template`, `--template`).
   */
  async resolve(name: string | undefined, field = 'template'): Promise<string> {
    if (name === undefined || name === DEFAULT_TEMPLATE) return this.sandboxImage;
    const cached = this.resolved.get(name);
    if (cached && cached.until > Date.now()) return cached.image;
    const image = await this.lookUp(name, field);
    this.resolved.set(name, { image, until: Date.now() + RESOLVED_FOR_MS });
    return image;
  }

  private async lookUp(name: string, field: string): Promise<string> {
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_.-]{0,62}$/.test(name))
      throw await this.unknown(name, field);
    const images = imagesOf(this.backend, `template ${JSON.stringify(name)}`, field);
    const shipped = shippedTemplates()[name];
    const found = await findTemplate(images, name, this.sandboxImage);
    if (found && !found.stale) return found.image;
    if (shipped) return this.buildShipped(name, shipped);
    if (found)
      throw new UserError(
        'conflict',
        `${field}: template ${JSON.stringify(name)} was built on ${found.base}, and this hookbox's sandbox image is ${this.sandboxImage}: rebuild it with \`hookbox template build ${found.source || 'DIR'} --name ${name}\``,
        { details: { field, template: name } },
      );
    throw await this.unknown(name, field);
  }

  private async unknown(name: unknown, field: string): Promise<UserError> {
    const known = await this.known();
    return new UserError(
      'invalid_argument',
      `${field}: unknown template ${JSON.stringify(name)}; known templates: ${known.join(', ')} (build one with \`hookbox template build DIR --name NAME\`)`,
      { details: { field, known } },
    );
  }

  private buildShipped(name: string, folder: string): Promise<string> {
    let build = this.building.get(name);
    if (!build) {
      checkTemplateName(name);
      build = buildTemplate(this.backend, this.logger, this.sandboxImage, {
        name,
        path: folder,
        ...(this.onProgress ? { onProgress: this.onProgress } : {}),
      })
        .then(() => templateTag(name))
        .catch((error: unknown) => {
          // A shipped template that does not build is hookbox's failure (or the mirror's), not the caller's.
          throw new SystemError(
            'image_build_failed',
            `building the shipped template ${name} failed: ${(error as Error).message}`,
            { cause: error },
          );
        })
        .finally(() => this.building.delete(name));
      this.building.set(name, build);
    }
    return build;
  }
}
