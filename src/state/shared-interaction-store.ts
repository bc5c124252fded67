import type { Interaction, Step } from '../interactions/schema.js';
import type {
  InteractionHead,
  InteractionStore,
  StoredInteraction,
} from '../interactions/store.js';
import type { ControllerStateStore } from './store.js';
import { parseStoredInteraction } from '../interactions/stored-upgrade.js';

/**
 * Interactions in a {@link ControllerStateStore} (PostgreSQL): every replica reads what any replica
 * wrote. Interactions are validated when read back. A running interaction is kept here by the
 * replica that runs it and written whole at each step (one row per interaction: replicas read it
 * as one document); it leaves memory when it ends.
 */
export class SharedInteractionStore implements InteractionStore {
  private readonly running = new Map<string, { interaction: Interaction; tenant: string | null }>();

  constructor(private readonly state: ControllerStateStore) {}

  async put(interaction: Interaction, tenant: string | null = null): Promise<void> {
    const copy = structuredClone(interaction);
    if (copy.status === 'in_progress') this.running.set(copy.id, { interaction: copy, tenant });
    await this.save(copy, tenant);
  }

  async appendStep(id: string, index: number, step: Step): Promise<void> {
    const entry = this.running.get(id);
    if (!entry) return;
    entry.interaction.steps[index] = step;
    await this.save(entry.interaction, entry.tenant);
  }

  async update(id: string, head: InteractionHead): Promise<void> {
    const entry = this.running.get(id);
    if (!entry) return;
    Object.assign(entry.interaction, head);
    if (head.status !== 'in_progress') this.running.delete(id);
    await this.save(entry.interaction, entry.tenant);
  }

  async get(id: string): Promise<Interaction | undefined> {
    const row = await this.state.interaction(id);
    return row === undefined ? undefined : parseStoredInteraction(row.body);
  }

  async recent(limit: number): Promise<StoredInteraction[]> {
    const found: StoredInteraction[] = [];
    for (const row of await this.state.recentInteractions(limit)) {
      // A row that no longer reads as an interaction is left out of the list, not fatal to it.
      const interaction = (() => {
        try {
          return parseStoredInteraction(row.body);
        } catch {
          return undefined;
        }
      })();
      if (interaction) found.push({ interaction, tenant: row.tenant ?? null });
    }
    return found;
  }

  async remove(id: string): Promise<void> {
    this.running.delete(id);
    await this.state.deleteInteraction(id);
  }

  async tenantOf(id: string): Promise<string | null | undefined> {
    const row = await this.state.interaction(id);
    return row === undefined ? undefined : (row.tenant ?? null);
  }

  private async save(interaction: Interaction, tenant: string | null): Promise<void> {
    await this.state.saveInteraction({
      id: interaction.id,
      environment_id: interaction.environment_id,
      status: interaction.status,
      body: interaction,
      updated: interaction.updated,
      tenant,
    });
  }
}
