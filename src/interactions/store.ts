import type { Interaction } from './schema.js';

/**
 * Where interactions are kept, so `GET /v1beta/interactions/{id}` and `previous_interaction_id`
 * find them. Async so that a persistent store (SQLite, issue 7) fits behind the same interface.
 */
export interface InteractionStore {
  /** Saves (or replaces) an interaction; the store keeps its own copy. */
  put(interaction: Interaction): Promise<void>;
  /** A copy of the interaction, or undefined when it is unknown (or was evicted). */
  get(id: string): Promise<Interaction | undefined>;
}

/** @default 10000 */
export const DEFAULT_MAX_STORED_INTERACTIONS = 10_000;

/**
 * Keeps interactions in memory, the most recently saved `maxInteractions` of them (the oldest are
 * evicted first). They are gone when the process ends.
 */
export class MemoryInteractionStore implements InteractionStore {
  private readonly interactions = new Map<string, Interaction>();

  constructor(private readonly maxInteractions = DEFAULT_MAX_STORED_INTERACTIONS) {}

  async put(interaction: Interaction): Promise<void> {
    this.interactions.delete(interaction.id);
    this.interactions.set(interaction.id, structuredClone(interaction));
    while (this.interactions.size > this.maxInteractions) {
      const oldest = this.interactions.keys().next().value as string;
      this.interactions.delete(oldest);
    }
  }

  async get(id: string): Promise<Interaction | undefined> {
    const interaction = this.interactions.get(id);
    return interaction && structuredClone(interaction);
  }

  get size(): number {
    return this.interactions.size;
  }
}
