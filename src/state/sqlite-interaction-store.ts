import { interactionSchema, type Interaction } from '../interactions/schema.js';
import type { InteractionStore } from '../interactions/store.js';
import type { StateStore } from './state-store.js';

/** Interactions in the controller's state file, so they can be read after a restart. */
export class SqliteInteractionStore implements InteractionStore {
  constructor(readonly state: StateStore) {}

  async put(interaction: Interaction): Promise<void> {
    this.state.saveInteraction({
      id: interaction.id,
      environment_id: interaction.environment_id,
      status: interaction.status,
      body: interaction as unknown as Record<string, unknown>,
      updated: interaction.updated,
    });
  }

  async get(id: string): Promise<Interaction | undefined> {
    const row = this.state.interaction(id);
    return row === undefined ? undefined : interactionSchema.parse(row.body);
  }

  /**
   * Marks every interaction still `in_progress` — it was running when the controller stopped — as
   * failed, with a reason. Returns how many.
   */
  markInterrupted(reason = 'the controller stopped while this interaction was running'): number {
    const now = new Date().toISOString();
    const interrupted = this.state.interactionsWithStatus('in_progress');
    for (const row of interrupted) {
      const interaction = interactionSchema.parse(row.body);
      this.state.saveInteraction({
        ...row,
        status: 'failed',
        updated: now,
        body: {
          ...interaction,
          status: 'failed',
          updated: now,
          error: { code: 'controller_restarted', message: reason },
        },
      });
    }
    return interrupted.length;
  }
}
