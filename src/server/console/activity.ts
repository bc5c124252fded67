import type { EgressRecord } from '../../record/egress-record.js';
import type { Observation, Observers } from '../../record/observations.js';
import type { HookOutcome, HookRecord } from '../../record/types.js';
import { callsOfInteraction, interactionFacts } from '../../interactions/interaction-facts.js';
import type { StoredInteraction } from '../../interactions/store.js';

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** How much the console remembers (in memory; it starts empty with every `hookbox serve`). */
export interface ActivityLimits {
  /** Hook runs kept for gate health: a day's worth, at most this many. @default 200000 */
  hookRuns: number;
  /** Recent calls kept per environment. @default 50 */
  callsPerEnvironment: number;
  /** Recent interactions listed. @default 200 */
  interactions: number;
  /** Recent egress decisions listed. @default 200 */
  egress: number;
}

export const DEFAULT_ACTIVITY_LIMITS: ActivityLimits = {
  hookRuns: 200_000,
  callsPerEnvironment: 50,
  interactions: 200,
  egress: 200,
};

interface HookRun {
  at: number;
  group: string;
  event: string;
  source: string;
  outcome: HookOutcome;
  duration_ms: number;
}

/** One tool call as the console shows it on an environment's page. */
export interface CallSummary {
  at: string;
  call_id: string;
  tool: string;
  outcome: 'blocked' | 'error' | 'ok';
  reason: string | null;
  hooks: HookRecord[];
}

/** An interaction as the console lists it: its latest observation, and when that came. */
export type InteractionSummary = Omit<
  Extract<Observation, { kind: 'interaction' }>,
  'kind' | 'at'
> & { updated: string };

/** What an environment did, beyond what `GET /v1beta/environments/{id}` says. */
export interface EnvironmentActivity {
  source: 'pool' | 'cold' | 'reattached' | null;
  create_ms: number | null;
  calls: number;
  denials: number;
  last_call: CallSummary | null;
}

/** One hook group's health over a window (docs/console.md, "Gate health"). */
export interface GateHealth {
  group: string;
  source: string;
  runs: number;
  outcomes: Partial<Record<HookOutcome, number>>;
  /** Fractions of the runs (0–1). `error`, `timeout` and `unrecognized` let a call through. */
  rates: { deny: number; error: number; timeout: number; unrecognized: number };
  p50_ms: number | null;
  p95_ms: number | null;
}

/** The value below which `fraction` of the sorted values lie (nearest rank). */
export function quantile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

/** Gate health per hook group, from the runs given (all inside the window). */
export function gateHealthOf(runs: Iterable<HookRun>): GateHealth[] {
  const groups = new Map<string, { source: string; runs: HookRun[] }>();
  for (const run of runs) {
    const key = `${run.source}\0${run.group}`;
    let entry = groups.get(key);
    if (!entry) groups.set(key, (entry = { source: run.source, runs: [] }));
    entry.runs.push(run);
  }
  const health: GateHealth[] = [];
  for (const [key, { source, runs: list }] of groups) {
    const outcomes: Partial<Record<HookOutcome, number>> = {};
    for (const run of list) outcomes[run.outcome] = (outcomes[run.outcome] ?? 0) + 1;
    // Skipped handlers never ran: they count as runs of the group but have no duration.
    const durations = list
      .filter((run) => run.outcome !== 'skipped')
      .map((run) => run.duration_ms)
      .sort((a, b) => a - b);
    const rate = (outcome: HookOutcome) => (outcomes[outcome] ?? 0) / list.length;
    health.push({
      group: key.slice(key.indexOf('\0') + 1),
      source,
      runs: list.length,
      outcomes,
      rates: {
        deny: rate('deny'),
        error: rate('error'),
        timeout: rate('timeout'),
        unrecognized: rate('unrecognized'),
      },
      p50_ms: quantile(durations, 0.5),
      p95_ms: quantile(durations, 0.95),
    });
  }
  return health.sort((a, b) => b.runs - a.runs || a.group.localeCompare(b.group));
}

/**
 * What the console shows beyond the API: recent calls per environment, recent interactions,
 * egress decisions, and the hook runs of the last day for gate health. Fed by the controller's
 * observations; memory is bounded by {@link ActivityLimits}.
 */
export class Activity {
  private readonly limits: ActivityLimits;
  private hookRuns: HookRun[] = [];
  private readonly calls = new Map<string, CallSummary[]>();
  private readonly environments = new Map<string, EnvironmentActivity>();
  private readonly interactions = new Map<string, InteractionSummary>();
  private readonly egressRecords: (EgressRecord & { at: string })[] = [];
  private readonly detach: () => void;

  constructor(
    observers: Observers,
    limits: Partial<ActivityLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_ACTIVITY_LIMITS, ...limits };
    this.detach = observers.add((observation) => this.observe(observation));
  }

  private environment(id: string): EnvironmentActivity {
    let entry = this.environments.get(id);
    if (!entry) {
      entry = { source: null, create_ms: null, calls: 0, denials: 0, last_call: null };
      this.environments.set(id, entry);
    }
    return entry;
  }

  observe(observation: Observation): void {
    switch (observation.kind) {
      case 'hook_run': {
        const { group, event, source, outcome, duration_ms } = observation.record;
        this.hookRuns.push({ at: observation.at, group, event, source, outcome, duration_ms });
        if (this.hookRuns.length > this.limits.hookRuns * 1.25) this.prune();
        return;
      }
      case 'tool_call': {
        const call: CallSummary = {
          at: new Date(observation.at).toISOString(),
          call_id: observation.call_id,
          tool: observation.tool,
          outcome: observation.outcome,
          reason: observation.reason,
          hooks: observation.hooks,
        };
        const list = this.calls.get(observation.environment_id) ?? [];
        list.push(call);
        if (list.length > this.limits.callsPerEnvironment) list.shift();
        this.calls.set(observation.environment_id, list);
        const entry = this.environment(observation.environment_id);
        entry.calls++;
        if (call.outcome === 'blocked') entry.denials++;
        entry.last_call = call;
        return;
      }
      case 'egress':
        this.egressRecords.push({
          ...observation.record,
          at: new Date(observation.at).toISOString(),
        });
        if (this.egressRecords.length > this.limits.egress) this.egressRecords.shift();
        return;
      case 'environment_created': {
        const entry = this.environment(observation.environment_id);
        entry.source = observation.source;
        entry.create_ms = Math.round(observation.duration_ms * 10) / 10;
        return;
      }
      case 'environment_deleted':
        this.environments.delete(observation.environment_id);
        this.calls.delete(observation.environment_id);
        return;
      case 'interaction': {
        const summary: InteractionSummary = {
          ...observation,
          updated: new Date(observation.at).toISOString(),
        };
        delete (summary as Partial<Observation>).kind;
        delete (summary as Partial<Observation>).at;
        this.interactions.delete(summary.interaction_id);
        this.interactions.set(summary.interaction_id, summary);
        if (this.interactions.size > this.limits.interactions) {
          const oldest = this.interactions.keys().next().value as string;
          this.interactions.delete(oldest);
        }
        return;
      }
    }
  }

  /**
   * Takes in interactions kept from before this server started (the state file's, newest first),
   * so the lists survive a restart (docs/console.md, "What it remembers"): each becomes a listed
   * interaction and its calls its environment's recent calls. What was observed since start is
   * newer and is kept as observed.
   */
  seed(
    stored: readonly StoredInteraction[],
    isLive: (environmentId: string) => boolean = () => true,
  ): void {
    const live = [...this.interactions.entries()];
    this.interactions.clear();
    const oldestFirst = [...stored].reverse().slice(-this.limits.interactions);
    const calls = new Map<string, CallSummary[]>();
    for (const { interaction, tenant } of oldestFirst) {
      if (live.some(([id]) => id === interaction.id)) continue;
      this.interactions.set(interaction.id, {
        interaction_id: interaction.id,
        environment_id: interaction.environment_id,
        agent: interaction.agent,
        status: interaction.status,
        tenant,
        created: interaction.created,
        updated: interaction.updated,
        ...interactionFacts(interaction),
      });
      const list = calls.get(interaction.environment_id) ?? [];
      for (const call of callsOfInteraction(interaction))
        list.push({
          at: interaction.updated,
          call_id: call.call_id,
          tool: call.tool,
          outcome: call.outcome,
          reason: call.reason,
          hooks: call.hooks,
        });
      calls.set(interaction.environment_id, list);
    }
    for (const [id, summary] of live) this.interactions.set(id, summary);
    while (this.interactions.size > this.limits.interactions)
      this.interactions.delete(this.interactions.keys().next().value as string);
    for (const [environmentId, list] of calls) {
      if (!isLive(environmentId)) continue;
      const observed = this.calls.get(environmentId) ?? [];
      const kept = [...list, ...observed].slice(-this.limits.callsPerEnvironment);
      this.calls.set(environmentId, kept);
      const entry = this.environment(environmentId);
      entry.calls += list.length;
      entry.denials += list.filter((call) => call.outcome === 'blocked').length;
      entry.last_call ??= kept.at(-1) ?? null;
    }
  }

  /** Drops hook runs older than a day, and the oldest past the limit. */
  private prune(): void {
    const since = this.now() - DAY_MS;
    let first = this.hookRuns.findIndex((run) => run.at >= since);
    if (first < 0) first = this.hookRuns.length;
    first = Math.max(first, this.hookRuns.length - this.limits.hookRuns);
    this.hookRuns = this.hookRuns.slice(first);
  }

  /** Gate health per hook group over the last hour and the last day. */
  gateHealth(): { hour: GateHealth[]; day: GateHealth[]; since: string | null } {
    this.prune();
    const hourAgo = this.now() - HOUR_MS;
    return {
      hour: gateHealthOf(this.hookRuns.filter((run) => run.at >= hourAgo)),
      day: gateHealthOf(this.hookRuns),
      since: this.hookRuns[0] ? new Date(this.hookRuns[0].at).toISOString() : null,
    };
  }

  environmentActivity(id: string): EnvironmentActivity {
    return (
      this.environments.get(id) ?? {
        source: null,
        create_ms: null,
        calls: 0,
        denials: 0,
        last_call: null,
      }
    );
  }

  /** An environment's recent calls, newest first. */
  callsOf(id: string): CallSummary[] {
    return [...(this.calls.get(id) ?? [])].reverse();
  }

  /** Recent interactions, newest first (optionally of one environment). */
  recentInteractions(environmentId?: string): InteractionSummary[] {
    const all = [...this.interactions.values()].reverse();
    return environmentId ? all.filter((i) => i.environment_id === environmentId) : all;
  }

  /** Recent egress decisions, newest first. */
  recentEgress(): (EgressRecord & { at: string })[] {
    return [...this.egressRecords].reverse();
  }

  close(): void {
    this.detach();
  }
}
