/** Reading stored interactions: one the caller may see, a chain of predecessors, a continuation's answered approvals. */
import { canSee, notFoundError } from '../tenants/ownership.js';
import type { Caller } from '../tenants/tenant.js';
import { answeredInteraction, withCurrentApprovals } from './approval-flow.js';
import type { ApprovalStore } from '../state/approvals.js';
import type { PreparedInteraction } from './prepared-interaction.js';
import type { Interaction } from './schema.js';
import type { ServiceEnvironment } from './service-controller.js';
import type { InteractionStore } from './store.js';

/**
 * A stored interaction; an unknown id, or one the caller may not see (docs/tenants.md,
 * "Ownership"), is the same 404 naming `field`.
 */
export async function interactionAt(
  store: InteractionStore,
  id: string,
  field = 'id',
  caller?: Caller,
): Promise<Interaction> {
  const visible = caller === undefined || canSee(await store.tenantOf(id), caller);
  const interaction = visible ? await store.get(id) : undefined;
  if (!interaction) throw notFoundError('interaction', id, field);
  return withCurrentApprovals(interaction);
}

/** The interaction a continuation answered shows its approvals' answers. */
export async function markAnswered(
  store: InteractionStore,
  approvals: ApprovalStore,
  prepared: PreparedInteraction<ServiceEnvironment>,
): Promise<void> {
  const previousId = prepared.interaction.previous_interaction_id;
  if (prepared.answered.length === 0 || !previousId) return;
  const previous = await store.get(previousId);
  const updated = previous && (await answeredInteraction(previous, approvals));
  // Saved whole again, keeping its owner (docs/tenants.md, "Ownership").
  if (updated) await store.put(updated, (await store.tenantOf(previousId)) ?? null);
}

/** The interaction and its predecessors, oldest first. */
export async function chainOf(store: InteractionStore, last: Interaction): Promise<Interaction[]> {
  const chain = [last];
  const seen = new Set([last.id]);
  let current = last;
  while (current.previous_interaction_id && !seen.has(current.previous_interaction_id)) {
    const previous = await store.get(current.previous_interaction_id);
    if (!previous) break;
    seen.add(previous.id);
    chain.unshift(previous);
    current = previous;
  }
  return chain;
}
