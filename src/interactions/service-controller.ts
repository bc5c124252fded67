/**
 * What the interaction service needs of the controller and of its environments, and no more
 * (docs/testing.md, "Fakes the compiler checks"). The real `Controller` and `Environment` meet these
 * interfaces, and so do the unit tests' fakes: a fake that drifts from the real classes fails `tsc`.
 */
import type { HooksConfig } from '../config/hooks-config.js';
import type { PlacedSource } from '../config/sources.js';
import type { CallOptions, CallOutcome } from '../controller/call-outcome.js';
import type { Controller } from '../controller/controller.js';
import type { Environment } from '../controller/environment.js';
import type { EnvironmentOptions } from '../controller/environment-options.js';
import type { NetworkState } from '../controller/network-change.js';
import type { Agents } from '../agents/agents.js';
import type { ContextStore } from '../hooks/controller-hooks/context-store.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import type { Allowlist } from '../network/allowlist.js';
import type { Observers } from '../record/observations.js';
import type { LifecycleHookRecord } from '../record/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { SnapshotRow } from '../snapshots/snapshot-rows.js';
import type { ApprovalStore } from '../state/approvals.js';
import type { Templates } from '../templates/templates.js';
import type { ToolCall } from '../tools/types.js';
import type { VocabularyId } from '../tools/registry.js';

/** What the service reads of, and does with, one environment (`Environment`'s members of these names). */
export interface ServiceEnvironment {
  readonly id: string;
  /** The tenant that owns it (docs/tenants.md); null: none. */
  readonly tenant: string | null;
  /** Whether it came from the warm pool (counted against the tenant's pooled hand-outs). */
  readonly pooled: boolean;
  readonly vocabulary: VocabularyId;
  /** ms since the epoch. */
  readonly createdAt: number;
  /** When a call last started (ms since the epoch); idle expiry goes by it. */
  readonly lastUsedAt: number;
  /** The environment level of the controller hooks' context store. */
  readonly store: ContextStore;
  readonly hooksConfig: HooksConfig;
  /** Undefined: no network at all. */
  readonly allowlist: Allowlist | undefined;
  readonly network: NetworkState;
  /** Whether its container still runs, and killing a cancelled call's processes. */
  readonly sandbox: Pick<Sandbox, 'lostReason' | 'request'>;
  call(call: ToolCall, options?: CallOptions): Promise<CallOutcome>;
  addSources(sources: PlacedSource[]): Promise<void>;
  replaceNetwork(raw: unknown, field?: string): Promise<NetworkState>;
  recordApproval(entry: Parameters<Environment['recordApproval']>[0]): void;
  recordLifecycle(records: readonly LifecycleHookRecord[]): void;
}

/** The snapshots the service takes, lists, finds and deletes (docs/environments.md, "Snapshots and forks"). */
export interface ServiceSnapshotStore<E extends ServiceEnvironment> {
  take(environment: E): Promise<SnapshotRow>;
  get(id: string): Promise<SnapshotRow | undefined>;
  list(): Promise<SnapshotRow[]>;
  delete(row: SnapshotRow): Promise<void>;
}

/** What the service reads of, and does with, the controller (`Controller`'s members of these names). */
export interface ServiceController<E extends ServiceEnvironment = ServiceEnvironment> {
  /** Stored agents: a request naming one is expanded to its definition (docs/agents.md). */
  readonly agents: Pick<Agents, 'expand'>;
  /** Durable state: its pending approvals are the service's when it has one. */
  readonly state: { readonly approvals: ApprovalStore } | undefined;
  /** Where the service reports interactions. */
  readonly observers: Pick<Observers, 'emit'>;
  /** The controller hooks an interaction's start and end run; undefined when there are none. */
  readonly hookRunner: HookRunner | undefined;
  /** A request's template is looked up before anything is made (docs/templates.md). */
  readonly templates: Pick<Templates, 'resolve'>;
  /** The warm pools by template: a request one would serve counts against a tenant's hand-outs. */
  readonly pools: ReadonlyMap<string, { readonly size: number }>;
  readonly snapshots: ServiceSnapshotStore<E>;
  checkRuntime(runtime: string, field?: string): Promise<void>;
  createEnvironment(options?: EnvironmentOptions): Promise<E>;
  listEnvironments(): E[];
  /** `actor`: an admin acting for the owner, recorded in its audit log. */
  deleteEnvironment(id: string, actor?: string): Promise<void>;
  forkEnvironment(id: string, count?: number): Promise<E[]>;
  /** With shared state, takes on an environment another replica made (docs/kubernetes.md). */
  adoptFromState(id: string): Promise<E | undefined>;
  /** Deletes every environment (the service's `close()` unless `closeController: false`). */
  close(): Promise<void>;
}

/** `T`, which must meet `U`: a type that stops meeting it fails `tsc` where this is used. */
type Meeting<T extends U, U> = T;

/**
 * The real controller, held to {@link ServiceController} over its real environments: the service's
 * default controller type, so a change to `Controller` or `Environment` that the service (or its
 * fakes) would not survive fails `tsc` here.
 */
export type RealServiceController = Meeting<Controller, ServiceController<Environment>>;

/** The environments a controller of the service makes. */
export type EnvironmentOf<C> =
  C extends ServiceController<infer E extends ServiceEnvironment> ? E : never;
