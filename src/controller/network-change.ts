import { UserError } from '../errors/index.js';
import { Allowlist, parseNetworkOptions } from '../network/allowlist.js';
import type { EnvironmentEgress } from '../network/environment-egress.js';

/** What an environment's network is now: `"disabled"` or the domains of its allowlist. */
export type NetworkState = 'disabled' | { allowlist: { domain: string }[] };

/** The network as `GET`/`PATCH …/network` show it (transform headers are never shown). */
export function networkStateOf(egress: EnvironmentEgress | undefined): NetworkState {
  const domains = egress?.allowlist.entries.map((entry) => ({ domain: entry.domain })) ?? [];
  return egress && domains.length > 0 ? { allowlist: domains } : 'disabled';
}

/**
 * The rules that replace a live environment's (docs/environments.md, "Network modes"): parsed and
 * checked like `environment.network`; `"disabled"` or an empty allowlist becomes an allowlist that
 * refuses everything, since the environment keeps its proxy. An environment made without a network
 * has none to change: giving it one is refused (409).
 */
export function replacementAllowlist(
  egress: EnvironmentEgress | undefined,
  raw: unknown,
  field = 'network',
): Allowlist | undefined {
  const parsed = parseNetworkOptions(raw ?? null, field);
  if (!egress) {
    if (parsed === undefined) return undefined;
    throw new UserError(
      'conflict',
      `${field}: this environment was made without a network (its container has no network interface but loopback); a network is chosen when an environment is made`,
      { details: { field } },
    );
  }
  return parsed ?? new Allowlist([], `${field}.allowlist`);
}
