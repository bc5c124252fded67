// Re-attaching to an environment listed in durable state, after a restart or for another replica.
import { z } from 'zod';
import { EMPTY_HOOKS_CONFIG, parseHooksConfig, type HooksConfig } from '../config/hooks-config.js';
import type { Observers } from '../record/observations.js';
import type { Logger } from '../record/logger.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { VOLUME_ROLES, volumeName } from '../sandbox/sandbox-volumes.js';
import type { ControllerStateStore, EnvironmentRow } from '../state/store.js';
import { VOCABULARIES, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { Environment } from './environment.js';
import type { SandboxOptions } from '../sandbox/sandbox-options.js';
import { DEFAULT_TEMPLATE } from '../templates/template-image.js';
import { recipeOf } from '../snapshots/recipe.js';

/** The settings saved with an environment (saved state is read back through this schema). */
const storedSettingsSchema = z.object({
  vocabulary: z.enum(Object.keys(VOCABULARIES) as [VocabularyId, ...VocabularyId[]]),
  timeoutMs: z.number().int().positive(),
  outputCapBytes: z.number().int().positive(),
  backgroundProcesses: z.boolean(),
  env: z.record(z.string(), z.string()).optional(),
});

/** The template and sandbox options saved with it (for its snapshots and forks). */
const storedRecipeSchema = z.object({
  template: z.string().default(DEFAULT_TEMPLATE),
  sandbox: (z.record(z.string(), z.unknown()).nullable() as z.ZodType<SandboxOptions | null>)
    .optional()
    .transform((value) => value ?? null),
});

/** What re-attaching needs of the controller. */
export interface Reattaching {
  client: ContainerClient;
  logger: Logger;
  state: ControllerStateStore;
  observers: Observers;
  /** Wraps the sandbox as a live environment of the controller. */
  adopt(
    sandbox: Sandbox,
    gates: HooksConfig,
    vocabulary: VocabularyId,
    settings: ToolRunSettings,
    owner: { tenant: string | null },
  ): Environment;
}

/** Re-attaches to one listed environment; one whose container is gone is forgotten. */
export async function reattachEnvironment(host: Reattaching, row: EnvironmentRow): Promise<void> {
  const container = await host.client.inspectContainer(row.container_id);
  if (!container?.running) {
    host.logger.warn(
      { environmentId: row.id, containerId: row.container_id },
      'environment lost while its controller was down',
    );
    if (container) await host.client.removeContainer(row.container_id).catch(() => {});
    for (const role of VOLUME_ROLES) {
      await host.client.removeVolume(volumeName(row.id, role)).catch(() => {});
    }
    await host.state.deleteEnvironment(row.id);
    return;
  }
  try {
    const sandbox = await Sandbox.reattach({
      client: host.client,
      logger: host.logger,
      environmentId: row.id,
      containerId: row.container_id,
    });
    const settings = storedSettingsSchema.parse(row.settings);
    const saved = storedRecipeSchema.safeParse(row.settings);
    const gates = row.hooks_json === null ? EMPTY_HOOKS_CONFIG : parseHooksConfig(row.hooks_json);
    const environment = host.adopt(sandbox, gates, settings.vocabulary, settings, {
      tenant: row.tenant ?? null,
    });
    environment.recipe = recipeOf({
      vocabulary: settings.vocabulary,
      template: saved.success ? saved.data.template : DEFAULT_TEMPLATE,
      settings,
      env: settings.env,
      sandbox: saved.success ? saved.data.sandbox : null,
      hooksJson: row.hooks_json,
    });
    // Idle since its last use before the restart: the TTL counts from there.
    const lastUsed = Date.parse(row.last_used);
    if (Number.isFinite(lastUsed)) environment.lastUsedAt = lastUsed;
    const created = Date.parse(row.created);
    if (Number.isFinite(created)) environment.createdAt = created;
    environment.reattached = true;
    environment.recordEvent('reattached');
    host.observers.emit({
      kind: 'environment_created',
      at: Date.now(),
      environment_id: row.id,
      duration_ms: 0,
      source: 'reattached',
    });
    host.logger.info({ environmentId: row.id }, 're-attached to environment');
  } catch (error) {
    host.logger.warn(
      { environmentId: row.id, error: (error as Error).message },
      're-attaching failed; the environment stays listed',
    );
  }
}

/**
 * Re-attaches listed environments for one controller, each once at a time however many requests
 * name it together (docs/kubernetes.md, Several replicas).
 */
export class Reattacher {
  private readonly underway = new Map<string, Promise<void>>();
  constructor(private readonly host: () => Reattaching) {}

  /** Re-attaches one listed environment; one whose container is gone is forgotten. */
  reattach(row: EnvironmentRow): Promise<void> {
    let pending = this.underway.get(row.id);
    if (!pending) {
      pending = reattachEnvironment(this.host(), row).finally(() => this.underway.delete(row.id));
      this.underway.set(row.id, pending);
    }
    return pending;
  }
}
