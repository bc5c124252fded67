import type { EgressRecord } from './egress-record.js';
import type { HookRecord, InteractionStatus } from './types.js';

/**
 * How a call of an interaction ended, as the console filters by it (docs/console.md, "Pages"):
 * `blocked` (a pre hook denied it), `waiting` (held for an approver: a hook answered `ask`),
 * `error` (the tool failed), `ok`.
 */
export type CallOutcome = 'ok' | 'blocked' | 'waiting' | 'error';

/** What the console lists of an interaction besides its status. */
export interface InteractionFacts {
  steps: number;
  /** Calls a pre hook denied. */
  denials: number;
  /** The tools it called, each once. */
  tools: string[];
  /** The hook groups that ran on its calls, each once. */
  gates: string[];
  /** Its calls' outcomes, each once. */
  call_outcomes: CallOutcome[];
}

/**
 * What the runtime reports as it works, for whoever watches: the metrics (docs/console.md,
 * "Metrics") and the console's live view. The environment, the controller and the interaction
 * service each emit one observation at the point where the thing is already recorded; they never
 * wait for, nor depend on, a listener.
 */
export type Observation =
  | { kind: 'hook_run'; at: number; record: HookRecord }
  | {
      kind: 'tool_call';
      at: number;
      environment_id: string;
      call_id: string;
      tool: string;
      /** `blocked` (a pre hook denied), `error` (the tool failed), `ok`. */
      outcome: 'blocked' | 'error' | 'ok';
      reason: string | null;
      hooks: HookRecord[];
    }
  | { kind: 'egress'; at: number; record: EgressRecord }
  | {
      kind: 'environment_created';
      at: number;
      environment_id: string;
      /** From the request to a usable environment. */
      duration_ms: number;
      /** `pool`: handed out from the warm pool; `cold`: made for the request; `reattached`. */
      source: 'pool' | 'cold' | 'reattached';
    }
  | { kind: 'environment_deleted'; at: number; environment_id: string }
  | ({
      kind: 'interaction';
      at: number;
      interaction_id: string;
      environment_id: string;
      agent: string;
      status: InteractionStatus;
      /** The tenant that made it (null: no tenants). */
      tenant: string | null;
      created: string;
    } & InteractionFacts);

export type ObservationListener = (observation: Observation) => void;

/** A set of listeners. A listener that throws is dropped from that one delivery, never the caller's problem. */
export class Observers {
  private readonly listeners = new Set<ObservationListener>();

  /** Adds a listener; the function returned removes it. */
  add(listener: ObservationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(observation: Observation): void {
    for (const listener of this.listeners) {
      try {
        listener(observation);
      } catch {
        // A watcher's failure must not change what the runtime does.
      }
    }
  }
}
