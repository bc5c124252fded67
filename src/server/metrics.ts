import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { INTERACTION_STATUSES } from '../record/types.js';
import { HOOK_OUTCOMES } from '../record/types.js';
import type { Controller } from '../controller/controller.js';
import type { Observation } from '../record/observations.js';

/** The statuses `hookbox_interactions_total` counts: every one but `in_progress`. */
/** The statuses `hookbox_interactions_total` counts: an interaction ended or paused (docs/console.md). */
export const ENDED_STATUSES: readonly string[] = INTERACTION_STATUSES.filter(
  (status) => status !== 'in_progress' && status !== 'queued',
);

/** Seconds buckets for hook runs: most gates take milliseconds; timeouts are whole seconds. */
const HOOK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds buckets for handing out an environment: a few ms from the pool, ~0.2 s cold. */
const ENVIRONMENT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HTTP_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120];

/**
 * The Prometheus metrics of one `hookbox serve` (docs/console.md, "Metrics"). Everything it counts
 * arrives as an observation from the controller (see src/record/observations.ts) or, for HTTP, from
 * the app's response hook: the runtime's own code only emits, it never touches a metric.
 */
export class HookboxMetrics {
  readonly registry = new Registry();
  private readonly toolCalls: Counter<'tool' | 'outcome'>;
  private readonly hookRuns: Counter<'group' | 'event' | 'outcome' | 'source'>;
  private readonly hookDuration: Histogram<'group' | 'event'>;
  private readonly environmentCreate: Histogram<'source'>;
  private readonly environmentsDeleted: Counter;
  private readonly egress: Counter<'decision' | 'rule' | 'form'>;
  private readonly interactions: Counter<'status'>;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route'>;
  private readonly detach: () => void;

  constructor(controller: Controller, inFlight: () => number) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'hookbox_' });
    this.toolCalls = new Counter({
      name: 'hookbox_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, blocked: a pre hook denied, error: the tool failed).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.hookRuns = new Counter({
      name: 'hookbox_hook_runs_total',
      help: `Hook runs by hook group, event and outcome (${HOOK_OUTCOMES.join(', ')}).`,
      labelNames: ['group', 'event', 'outcome', 'source'],
      registers,
    });
    this.hookDuration = new Histogram({
      name: 'hookbox_hook_duration_seconds',
      help: 'How long hook runs took, by hook group and event.',
      labelNames: ['group', 'event'],
      buckets: HOOK_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'hookbox_environments_live',
      help: 'Environments handed out and not yet deleted.',
      registers,
      collect() {
        this.set(controller.listEnvironments().length);
      },
    });
    new Gauge({
      name: 'hookbox_environments_pooled',
      help: 'Hardened environments ready in the warm pool.',
      registers,
      collect() {
        this.set(controller.pool?.size ?? 0);
      },
    });
    this.environmentCreate = new Histogram({
      name: 'hookbox_environment_create_seconds',
      help: 'From asking for an environment to a usable one, by source (pool, cold, reattached).',
      labelNames: ['source'],
      buckets: ENVIRONMENT_BUCKETS,
      registers,
    });
    this.environmentsDeleted = new Counter({
      name: 'hookbox_environments_deleted_total',
      help: 'Environments deleted (by request, by expiry or at shutdown).',
      registers,
    });
    this.egress = new Counter({
      name: 'hookbox_egress_decisions_total',
      help: 'Connections through the egress proxy by decision (allowed, refused, failed), rule and form.',
      labelNames: ['decision', 'rule', 'form'],
      registers,
    });
    this.interactions = new Counter({
      name: 'hookbox_interactions_total',
      help: `Interactions that ended or paused, by status (${ENDED_STATUSES.join(', ')}).`,
      labelNames: ['status'],
      registers,
    });
    new Gauge({
      name: 'hookbox_interactions_in_flight',
      help: 'Interactions running now.',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    this.httpRequests = new Counter({
      name: 'hookbox_http_requests_total',
      help: 'HTTP requests by method, route (the route pattern, not the path) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'hookbox_http_request_duration_seconds',
      help: 'HTTP request durations by method and route (a streamed interaction lasts as long as it runs).',
      labelNames: ['method', 'route'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.detach = controller.observers.add((observation) => this.observe(observation));
  }

  private observe(observation: Observation): void {
    switch (observation.kind) {
      case 'hook_run': {
        const { group, event, outcome, source, duration_ms } = observation.record;
        this.hookRuns.inc({ group, event, outcome, source });
        this.hookDuration.observe({ group, event }, duration_ms / 1000);
        return;
      }
      case 'tool_call':
        this.toolCalls.inc({ tool: observation.tool, outcome: observation.outcome });
        return;
      case 'egress': {
        const { decision, form } = observation.record;
        // An allowed connection's rule is the allowlist entry's domain: unbounded, so not a label.
        const rule = decision === 'allowed' ? 'allowlist' : observation.record.rule;
        this.egress.inc({ decision, rule, form });
        return;
      }
      case 'environment_created':
        if (observation.source !== 'reattached')
          this.environmentCreate.observe(
            { source: observation.source },
            observation.duration_ms / 1000,
          );
        return;
      case 'environment_deleted':
        this.environmentsDeleted.inc();
        return;
      case 'interaction':
        if (ENDED_STATUSES.includes(observation.status))
          this.interactions.inc({ status: observation.status });
        return;
    }
  }

  /** One answered HTTP request; `route` is the route's pattern (`/v1beta/environments/:id`). */
  httpRequest(method: string, route: string, status: number, durationMs: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, durationMs / 1000);
  }

  /** The text a Prometheus scrape gets. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  close(): void {
    this.detach();
  }
}
