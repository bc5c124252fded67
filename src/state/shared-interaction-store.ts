import { interactionSchema, type Interaction } from '../interactions/schema.js';
import type { InteractionStore } from '../interactions/store.js';
import type { ControllerStateStore } from './store.js';

/**
 * Interactions in a {@link ControllerStateStore} (PostgreSQL): every replica reads what any replica
 * wrote. Interactions are validated when read back.
 */
export class SharedInteractionStore implements InteractionStore {
  constructor(private readonly state: ControllerStateStore) {}

  async put(interaction: Interaction): Promise<void> {
    await this.state.saveInteraction({
      id: interaction.id,
      environment_id: interaction.environment_id,
      status: interaction.status,
      body: interaction as unknown as Record<string, unknown>,
      updated: interaction.updated,
    });
  }

  async get(id: string): Promise<Interaction | undefined> {
    const row = await this.state.interaction(id);
    return row === undefined ? undefined : interactionSchema.parse(row.body);
  }
}
