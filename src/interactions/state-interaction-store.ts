import type { Interaction, Step } from './schema.js';
import type { InteractionHead, InteractionStore, StoredInteraction } from './store.js';
import type { ControllerStateStore } from '../state/store.js';
import { parseStoredInteraction } from './stored-upgrade.js';

/**
 * Interactions in the controller's state (a SQLite file or PostgreSQL), so they can be read after
 * a restart and by every replica. The row holds everything but the steps; each step is a row of
 * its own, appended as it happens, so saving a step costs what the step holds (docs/tenants.md,
 * "Output and memory"). Interactions are validated when read back, older shapes upgraded.
 */
export class StateInteractionStore implements InteractionStore {
  constructor(readonly state: ControllerStateStore) {}

  async put(interaction: Interaction, tenant: string | null = null): Promise<void> {
    await this.state.saveInteraction({
      id: interaction.id,
      environment_id: interaction.environment_id,
      status: interaction.status,
      body: { ...interaction, steps: [] },
      updated: interaction.updated,
      tenant,
    });
    await this.state.replaceInteractionSteps(interaction.id, interaction.steps);
  }

  async appendStep(id: string, index: number, step: Step): Promise<void> {
    await this.state.appendInteractionStep(id, index, step);
  }

  async update(id: string, head: InteractionHead): Promise<void> {
    const row = await this.state.interaction(id);
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
    await this.state.saveInteraction({ ...row, status: head.status, updated: head.updated, body });
  }

  async get(id: string): Promise<Interaction | undefined> {
    const row = await this.state.interaction(id);
    if (row === undefined) return undefined;
    const rows = await this.state.interactionSteps(id);
    const inBody = Array.isArray(row.body.steps) ? (row.body.steps as unknown[]) : [];
    return parseStoredInteraction({ ...row.body, steps: [...inBody, ...rows] });
  }

  async recent(limit: number): Promise<StoredInteraction[]> {
    const found: StoredInteraction[] = [];
    for (const row of await this.state.recentInteractions(limit)) {
      // A row that no longer reads as an interaction is left out of the list, not fatal to it.
      const interaction = await this.get(row.id).catch(() => undefined);
      if (interaction) found.push({ interaction, tenant: row.tenant ?? null });
    }
    return found;
  }

  async remove(id: string): Promise<void> {
    await this.state.deleteInteraction(id);
  }

  async tenantOf(id: string): Promise<string | null | undefined> {
    const row = await this.state.interaction(id);
    return row === undefined ? undefined : (row.tenant ?? null);
  }

  /**
   * Marks every interaction still `in_progress` — it was running when the controller stopped — as
   * failed, with a reason. Returns how many. Only for state this controller holds alone: in shared
   * state an interaction in progress may be another replica's, running now.
   */
  async markInterrupted(
    reason = 'the controller stopped while this interaction was running',
  ): Promise<number> {
    const now = new Date().toISOString();
    const interrupted = await this.state.interactionsWithStatus('in_progress');
    for (const row of interrupted) {
      await this.state.saveInteraction({
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
