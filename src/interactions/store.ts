import type { Interaction, Step } from './schema.js';

/** What changes in an interaction besides its steps. */
export type InteractionHead = Pick<Interaction, 'status' | 'output_text' | 'updated'> & {
  /** Token totals of the model driver (docs/contract.md §9). */
  usage?: Interaction['usage'];
  error?: Interaction['error'];
  /** The calls waiting for an approver, when the status is `requires_action` (docs/dialects.md). */
  pending_approvals?: Interaction['pending_approvals'];
};

/**
 * Where interactions are kept, so `GET /v1beta/interactions/{id}` and `previous_interaction_id`
 * find them. Saving is incremental: a running interaction's steps are appended one at a time and
 * the rest updated in place, so saving costs what the new step holds, never the whole interaction
 * again (docs/tenants.md, "Output and memory"). Every interaction records the tenant that made it.
 */
export interface InteractionStore {
  /** Saves (or replaces) an interaction whole, with its owner (null: no tenant). */
  put(interaction: Interaction, tenant?: string | null): Promise<void>;
  /**
   * Appends step `index` of a saved interaction. The store may keep the step object itself: the
   * caller does not change it afterwards.
   */
  appendStep(id: string, index: number, step: Step): Promise<void>;
  /** Updates status, output_text, error and updated of a saved interaction. */
  update(id: string, head: InteractionHead): Promise<void>;
  /** The interaction (callers must not change its steps), or undefined when unknown or evicted. */
  get(id: string): Promise<Interaction | undefined>;
  /** The tenant that made it (null: none recorded), or undefined when the interaction is unknown. */
  tenantOf(id: string): Promise<string | null | undefined>;
  /** Forgets an interaction (`DELETE`, or `store: false` once answered). */
  remove(id: string): Promise<void>;
  /**
   * The most recently updated interactions, newest first, at most `limit`: what the console lists
   * after a restart (docs/console.md, "What it remembers"). Only a store that outlives the process
   * has it.
   */
  recent?(limit: number): Promise<StoredInteraction[]>;
}

/** A kept interaction with the tenant that made it (null: none recorded). */
export interface StoredInteraction {
  interaction: Interaction;
  tenant: string | null;
}

/** @default 10000 */
export const DEFAULT_MAX_STORED_INTERACTIONS = 10_000;

/** @default 256 MiB */
export const DEFAULT_MAX_STORED_BYTES = 256 * 1024 * 1024;

/** About how many bytes a JSON value holds in memory (strings by length; enough for a budget). */
export function approximateBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 16;
  if (value === null || typeof value !== 'object') return 8;
  let total = 16;
  if (Array.isArray(value)) for (const item of value) total += approximateBytes(item);
  else
    for (const [key, item] of Object.entries(value)) total += key.length + approximateBytes(item);
  return total;
}

interface Entry {
  interaction: Interaction;
  tenant: string | null;
  bytes: number;
}

/**
 * Keeps interactions in memory, at most `maxInteractions` of them and about `maxBytes` in all:
 * past either, the oldest finished ones are evicted (a running one is always kept). They are gone
 * when the process ends. Steps are kept as given, never copied (the service never changes a step
 * once it is added).
 */
export class MemoryInteractionStore implements InteractionStore {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly maxInteractions = DEFAULT_MAX_STORED_INTERACTIONS,
    private readonly maxBytes = DEFAULT_MAX_STORED_BYTES,
  ) {}

  async put(interaction: Interaction, tenant: string | null = null): Promise<void> {
    this.drop(interaction.id);
    const copy = { ...structuredClone({ ...interaction, steps: [] }), steps: [] as Step[] };
    const entry: Entry = { interaction: copy, tenant, bytes: approximateBytes(copy) };
    this.entries.set(interaction.id, entry);
    this.bytes += entry.bytes;
    for (const step of interaction.steps) this.addStep(entry, structuredClone(step));
    this.evict();
  }

  async appendStep(id: string, index: number, step: Step): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry || index !== entry.interaction.steps.length) return;
    this.addStep(entry, step);
    this.evict();
  }

  async update(id: string, head: InteractionHead): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) return;
    const { interaction } = entry;
    interaction.status = head.status;
    interaction.output_text = head.output_text;
    interaction.updated = head.updated;
    if (head.error === undefined) delete interaction.error;
    else interaction.error = structuredClone(head.error);
    if (head.usage !== undefined) interaction.usage = structuredClone(head.usage);
    if (head.pending_approvals === undefined) delete interaction.pending_approvals;
    else interaction.pending_approvals = structuredClone(head.pending_approvals);
    this.evict();
  }

  async get(id: string): Promise<Interaction | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const { steps, ...head } = entry.interaction;
    return { ...structuredClone(head), steps: [...steps] };
  }

  async tenantOf(id: string): Promise<string | null | undefined> {
    return this.entries.get(id)?.tenant;
  }

  async remove(id: string): Promise<void> {
    this.drop(id);
  }

  get size(): number {
    return this.entries.size;
  }

  /** About how many bytes the kept interactions hold. */
  get storedBytes(): number {
    return this.bytes;
  }

  private addStep(entry: Entry, step: Step): void {
    entry.interaction.steps.push(step);
    const bytes = approximateBytes(step);
    entry.bytes += bytes;
    this.bytes += bytes;
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    if (this.entries.size <= this.maxInteractions && this.bytes <= this.maxBytes) return;
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxInteractions && this.bytes <= this.maxBytes) return;
      const running = ['queued', 'in_progress'].includes(entry.interaction.status);
      if (!running) this.drop(id);
    }
  }
}
