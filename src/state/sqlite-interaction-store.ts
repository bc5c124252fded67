import type { Interaction, Step } from '../interactions/schema.js';
import type {
  InteractionHead,
  InteractionStore,
  StoredInteraction,
} from '../interactions/store.js';
import type { StateStore } from './state-store.js';
import { parseStoredInteraction } from '../interactions/stored-upgrade.js';

/**
 * Interactions in the controller's state file, so they can be read after a restart. The row holds
 * everything but the steps; each step is a row of its own, appended as it happens.
 */
export class SqliteInteractionStore implements InteractionStore {
  constructor(readonly state: StateStore) {}

  async put(interaction: Interaction, tenant: string | null = null): Promise<void> {
    this.state.saveInteraction({
      id: interaction.id,
      environment_id: interaction.environment_id,
      status: interaction.status,
      body: { ...interaction, steps: [] },
      updated: interaction.updated,
      tenant,
    });
    this.state.replaceInteractionSteps(interaction.id, interaction.steps);
  }

  async appendStep(id: string, index: number, step: Step): Promise<void> {
    this.state.appendInteractionStep(id, index, step);
  }

  async update(id: string, head: InteractionHead): Promise<void> {
    const row = this.state.interaction(id);
    if (!row) return;
    const body: Record<string, unknown> = {
      ...row.body,
      status: head.status,
      output_text: head.output_text,
      updated: head.updated,
    };
    if (head.error === undefined) delete body.error;
    else body.error = head.error;
    if (head.usage !== undefined) body.usage = head.usage;
    if (head.pending_approvals === undefined) delete body.pending_approvals;
    else body.pending_approvals = head.pending_approvals;
    this.state.saveInteraction({ ...row, status: head.status, updated: head.updated, body });
  }

  async get(id: string): Promise<Interaction | undefined> {
    const row = this.state.interaction(id);
    if (row === undefined) return undefined;
    const rows = this.state.interactionSteps(id);
    const inBody = Array.isArray(row.body.steps) ? (row.body.steps as unknown[]) : [];
    return parseStoredInteraction({ ...row.body, steps: [...inBody, ...rows] });
  }

  async recent(limit: number): Promise<StoredInteraction[]> {
    const found: StoredInteraction[] = [];
    for (const row of this.state.recentInteractions(limit)) {
      // A row that no longer reads as an interaction is left out of the list, not fatal to it.
      const interaction = await this.get(row.id).catch(() => undefined);
      if (interaction) found.push({ interaction, tenant: row.tenant ?? null });
    }
    return found;
  }

  async remove(id: string): Promise<void> {
    this.state.deleteInteraction(id);
  }

  async tenantOf(id: string): Promise<string | null | undefined> {
    const row = this.state.interaction(id);
    return row === undefined ? undefined : (row.tenant ?? null);
  }

  /**
   * Marks every interaction still `in_progress` — it was running when the controller stopped — as
   * failed, with a reason. Returns how many.
   */
  markInterrupted(reason = 'the controller stopped while this interaction was running'): number {
    const now = new Date().toISOString();
    const interrupted = this.state.interactionsWithStatus('in_progress');
    for (const row of interrupted) {
      this.state.saveInteraction({
        ...row,
        status: 'failed',
        updated: now,
        body: {
          ...row.body,
          status: 'failed',
          updated: now,
          error: { code: 'controller_restarted', message: reason },
        },
      });
    }
    return interrupted.length;
  }
}
