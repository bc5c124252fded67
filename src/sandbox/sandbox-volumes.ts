// The Docker volumes of an environment's sandbox: their roles and names.
import type { ResourceRole } from './labels.js';

/** The volumes of an environment; with a workspace disk, only the last two. */
export const VOLUME_ROLES = ['workspace', 'agents', 'state'] as const;
export const AGENT_ROLES = ['agents', 'state'] as const;

export function volumeName(environmentId: string, role: Exclude<ResourceRole, 'sandbox'>): string {
  return `hookbox-${environmentId}-${role}`;
}
