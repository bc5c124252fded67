/** An interaction checked and set up, ready to run, and the listener told of its events. */
import type { Environment } from '../controller/environment.js';
import type { Caller } from '../tenants/tenant.js';
import type { ConversationTurn, ModelDriver, ModelTool } from './driver.js';
import type { PendingApproval } from '../state/approvals.js';
import type { ParsedInteractionRequest } from './request.js';
import type { Interaction, Step } from './schema.js';
import type { ServiceEnvironment } from './service-controller.js';

/**
 * What happens while an interaction runs, as the library and `hookbox run` hear it; the API's
 * streams turn these into the SDKs' events (sdk-events.ts).
 */
export type RunEvent =
  | { event_type: 'interaction.created'; interaction: Interaction }
  | { event_type: 'step'; index: number; step: Step }
  | {
      event_type: 'code_execution_output';
      call_id: string;
      arguments: Record<string, unknown>;
      stream: 'stdout' | 'stderr';
      chunk: string;
    }
  | { event_type: 'interaction.complete'; interaction: Interaction };

export type InteractionListener = (event: RunEvent) => void;

/** An interaction checked and set up (its environment exists), ready to run; `E`: its environment's type. */
export interface PreparedInteraction<E extends ServiceEnvironment = Environment> {
  readonly interaction: Interaction;
  readonly environment: E;
  readonly driver: ModelDriver;
  readonly request: ParsedInteractionRequest;
  readonly history: ConversationTurn[];
  readonly tools: ModelTool[];
  readonly enabledTools: string[];
  /** The pending approvals this request answers (its `approval` input items). */
  readonly answered: PendingApproval[];
  /** Who asked for it (undefined: the library, no tenants). */
  readonly caller?: Caller;
  /** Gives back the caller's place among its running interactions. */
  readonly release: () => void;
}
