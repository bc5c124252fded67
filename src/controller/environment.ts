import type { HooksConfig } from '../config/hooks-config.js';
import type { PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import type { Allowlist, NetworkOptions } from '../network/allowlist.js';
import type { EgressRecord } from '../record/egress-record.js';
import { EnvironmentEgress } from '../network/environment-egress.js';
import { ContextStore } from '../hooks/controller-hooks/context-store.js';
import type { LifecycleHookRecord } from '../record/types.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import type { AuditBudget } from '../record/audit-bound.js';
import {
  AuditLog,
  readAuditLog,
  type AuditEntry,
  type EnvironmentEventName,
} from '../record/audit-log.js';
import type { Logger } from '../record/logger.js';
import type { HookRecord } from '../record/types.js';
import { newCallContext } from '../hooks/call-context.js';
import { newCallId } from '../ids.js';
import { SANDBOX_PATHS } from '../sandbox/sandbox-options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { resolveToolCall, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { ToolCall } from '../tools/types.js';
import type { CallOptions, CallOutcome } from './call-outcome.js';
import { cancellationOf } from './call-cancellation.js';
import { runCall, type CallSite } from './call-pipeline.js';
import { recordToolCall } from './call-record.js';
import { hooksConfigOf, hooksJsonOf } from '../hooks/hooks-config-of.js';
export type { CallOptions, CallOutcome } from './call-outcome.js';
import type { EnvironmentEvents, EnvironmentParts } from './environment-parts.js';
import { SandboxHandlers } from './sandbox-handlers.js';
import { SerialQueue } from './serial-queue.js';
import { networkStateOf, replacementAllowlist, type NetworkState } from './network-change.js';
import { WorkspaceFiles } from './workspace-files.js';
import type { EnvironmentRecipe } from '../snapshots/recipe.js';

export type { EnvironmentEvents, EnvironmentParts } from './environment-parts.js';

/**
 * One live environment: its sandbox, its gates, its settings and its audit log. Calls run one at a
 * time, through the gates, and every hook run is recorded.
 */
export class Environment {
  private gates: HooksConfig;
  private readonly queue = new SerialQueue();
  /** When a call last started (ms since the epoch); idle-expiry goes by it. */
  lastUsedAt = Date.now();
  /**
   * When it was made (ms since the epoch): for one re-attached after a restart, its original
   * creation, so its age survives the restart (docs/console.md, "Pages").
   */
  createdAt = Date.now();
  /** Re-attached after a restart (docs/console.md, "Pages": made how). */
  reattached = false;
  private readonly handlers: SandboxHandlers;
  /** The id the next call gets, known ahead so its prestarted hooks can be given it. */
  private nextCallId = newCallId();
  private deleted = false;
  /** The environment level of the controller hooks' context store. */
  readonly store = new ContextStore();
  /** Files in and out of /workspace (docs/environments.md, "Files"). */
  readonly files: WorkspaceFiles;
  /** How it was made, for its snapshots and forks (set by the controller once it is made). */
  recipe: EnvironmentRecipe | undefined;
  /**
   * Its network rules as last given (credential references unresolved, inline transforms as
   * given: in memory only), for its snapshots and forks.
   */
  networkOptions: NetworkOptions | undefined;

  readonly sandbox: Sandbox;
  readonly vocabulary: VocabularyId;
  /** The tenant that owns it (docs/tenants.md); null: none. */
  readonly tenant: string | null;
  /** Whether it came from the warm pool. */
  readonly pooled: boolean;
  private readonly settings: ToolRunSettings;
  private readonly audit: AuditLog;
  private readonly logger: Logger;
  private readonly controllerHooks: HookRunner | undefined;
  private readonly events: EnvironmentEvents;

  constructor(parts: EnvironmentParts) {
    const { sandbox, gates, vocabulary, settings, logger, controllerHooks } = parts;
    const hookProcesses = parts.hookProcesses ?? { prestart: true };
    this.sandbox = sandbox;
    this.vocabulary = vocabulary;
    this.settings = settings;
    this.logger = logger;
    this.controllerHooks = controllerHooks;
    this.audit = parts.audit;
    this.events = parts.events ?? {};
    this.tenant = parts.tenant ?? null;
    this.pooled = parts.pooled ?? false;
    this.gates = gates;
    this.handlers = new SandboxHandlers(
      sandbox,
      gates,
      vocabulary,
      settings,
      logger,
      () => this.egress,
      hookProcesses,
    );
    this.handlers.prestartNext(this.nextCallId);
    this.files = new WorkspaceFiles({
      environmentId: sandbox.environmentId,
      vocabulary,
      gates: () => this.gates,
      executor: this.handlers,
      record: (hook) => this.record(hook),
      controllerHooks,
      store: this.store,
      sandbox,
      exclusive: (work) => {
        this.lastUsedAt = Date.now();
        this.events.onUsed?.();
        return this.queue.run(work);
      },
      audit: (entry) => this.audit.append(entry),
      gated: parts.filesApiGates ?? true,
      assertLive: () => this.assertLive(),
    });
  }

  private assertLive(): void {
    if (this.deleted) {
      throw new UserError('not_found', `environment ${this.id} was deleted`, {
        details: { field: 'environment_id' },
      });
    }
  }

  get id(): string {
    return this.sandbox.environmentId;
  }

  /** The gates now in force. */
  get hooksConfig(): HooksConfig {
    return this.gates;
  }

  get auditLogPath(): string {
    return this.audit.path;
  }

  /** The environment's allowlist, when it has a network (undefined: no network at all). */
  get allowlist(): Allowlist | undefined {
    return this.egress?.allowlist;
  }

  /** The environment's way out, when it has a `network.allowlist` (docs/contract.md §7). */
  get egress(): EnvironmentEgress | undefined {
    return this.sandbox.network instanceof EnvironmentEgress ? this.sandbox.network : undefined;
  }

  /** Records one connection through the egress proxy (header values are never in it). */
  recordEgress(record: EgressRecord): void {
    this.audit.append({ kind: 'egress', at: new Date().toISOString(), ...record });
    this.events.observe?.({ kind: 'egress', at: Date.now(), record });
  }

  /**
   * Runs one tool call through the gates (docs/contract.md §5, §6). Bad input (unknown tool, missing or mistyped
   * arguments) is refused before any hook runs.
   */
  async call(toolCall: ToolCall, options: CallOptions = {}): Promise<CallOutcome> {
    this.assertLive();
    const resolved = resolveToolCall(toolCall, this.vocabulary);
    const verbatim: ToolCall = { name: toolCall.name, args: toolCall.args ?? {} };
    this.lastUsedAt = Date.now();
    this.events.onUsed?.();
    return this.queue.run(async () => {
      // What ran, for the next call's prestart guesses: noted once, whether the call ran, was
      // blocked or failed.
      // A call re-run after its approval keeps its id; else the id its prestarted hooks were given.
      const callId = options.callId ?? this.takeCallId();
      const context = newCallContext({
        environmentId: this.id,
        callId,
        call: verbatim,
        stateDir: SANDBOX_PATHS.stateDir,
      });
      const cancellation = options.signal && cancellationOf(this.sandbox, options.signal);
      try {
        await this.handlers.prestartSent();
        return await runCall(this.callSite(), context, resolved, options);
      } finally {
        await cancellation?.done();
        this.handlers.noteTool(resolved.tool.name, context.language);
        if (!this.deleted) this.handlers.prestartNext(this.nextCallId);
      }
    });
  }

  /**
   * Resolves once the next call's processes are started (docs/gates.md, "Prestart and workers"):
   * the agent has answered the request made after the last call. A model's turn usually gives them
   * this time; tests and benchmarks wait on this instead of sleeping.
   */
  prestarted(): Promise<void> {
    return this.handlers.prestartAnswered();
  }

  /** The id the next call gets, and a new one reserved for the call after it. */
  private takeCallId(): string {
    const callId = this.nextCallId;
    this.nextCallId = newCallId();
    return callId;
  }

  private record(hook: HookRecord, budget?: AuditBudget): void {
    this.audit.append({ kind: 'hook', at: new Date().toISOString(), ...hook }, budget);
    this.logger.info(hook, 'hook run');
    this.events.observe?.({ kind: 'hook_run', at: Date.now(), record: hook });
  }

  /** What a call needs of this environment (read inside the queue: the gates in force now). */
  private callSite(): CallSite {
    return {
      environmentId: this.id,
      sandbox: this.sandbox,
      vocabulary: this.vocabulary,
      settings: this.settings,
      gates: this.gates,
      handlers: this.handlers,
      controllerHooks: this.controllerHooks,
      store: this.store,
      record: (hook, budget) => this.record(hook, budget),
      finish: (budget, outcome) =>
        recordToolCall(
          this.audit,
          (observation) => this.events.observe?.(observation),
          this.id,
          budget,
          outcome,
        ),
    };
  }

  /**
   * Adds sources to this environment between calls (docs/contract.md §3, §9): workspace files are added; if any
   * `.agents/` source is sent, the whole of /.agents is replaced. The new hooks.json is validated
   * first; an invalid one is refused with the old gates left in place. No call sees a mix.
   */
  async addSources(sources: PlacedSource[]): Promise<void> {
    const agents = sources.filter((source) => source.area === 'agents');
    const newGates = agents.length > 0 ? hooksConfigOf(agents, this.egress?.allowlist) : undefined;
    await this.queue.run(async () => {
      // The request asked for after the last call goes first, for the gates it was made for.
      await this.handlers.prestartSent();
      if (sources.some((source) => source.area === 'workspace'))
        await this.sandbox.addWorkspaceSources(sources);
      if (newGates) {
        this.handlers.replacingGates();
        await this.sandbox.replaceAgents(agents);
        this.gates = newGates;
        this.handlers.gatesReplaced(newGates, this.nextCallId);
        const hooksJson = hooksJsonOf(agents);
        this.events.onGatesReplaced?.(hooksJson);
        if (this.recipe) this.recipe = { ...this.recipe, hooksJson };
        this.recordEvent('gates_replaced', {
          detail: { files: agents.map((a) => a.absolutePath) },
        });
      }
    });
  }

  /**
   * Runs `work` between calls: when no call is in flight, and none starts until it ends (a
   * snapshot or fork copies a workspace no call is changing).
   */
  whileIdle<T>(work: () => Promise<T>): Promise<T> {
    this.assertLive();
    return this.queue.run(async () => {
      this.assertLive();
      return work();
    });
  }

  /** The network now: `"disabled"` or the allowlist's domains (docs/environments.md, "Network modes"). */
  get network(): NetworkState {
    return networkStateOf(this.egress);
  }

  /**
   * Opens the `credential` references of a replacement allowlist, with this environment's tenant
   * and placeholders (set by the controller for a networked environment; docs/credentials.md).
   */
  resolveNetwork: ((allowlist: Allowlist, field: string) => Promise<Allowlist>) | undefined;

  /**
   * Replaces the network rules, between calls: a call in flight finishes under the rules it started
   * with, the next call gets the new ones (docs/environments.md, "Network modes").
   */
  async replaceNetwork(raw: unknown, field = 'network'): Promise<NetworkState> {
    this.assertLive();
    let allowlist = replacementAllowlist(this.egress, raw, field);
    if (allowlist && this.resolveNetwork)
      allowlist = await this.resolveNetwork(allowlist, `${field}.allowlist`);
    return this.queue.run(async () => {
      if (allowlist) this.egress?.setAllowlist(allowlist);
      if (allowlist && this.egress) this.networkOptions = (raw ?? 'disabled') as NetworkOptions;
      const state = this.network;
      this.recordEvent('network_replaced', { detail: state });
      return state;
    });
  }

  /**
   * Records an environment event in the audit log: made, re-attached, its network replaced, a
   * snapshot taken of it (`detail`: its id), forked (the copies' ids), deleted (by `actor`).
   */
  recordEvent(
    event: EnvironmentEventName,
    more: { detail?: unknown; actor?: string | undefined } = {},
  ): void {
    const { detail, actor } = more;
    this.audit.append({
      kind: 'environment',
      at: new Date().toISOString(),
      environment_id: this.id,
      event,
      ...(detail === undefined ? {} : { detail }),
      ...(actor === undefined ? {} : { actor }),
    });
  }

  /** Records an approver's answer to a call that waited (docs/dialects.md, "ask"). */
  recordApproval(entry: {
    call_id: string;
    interaction_id: string | null;
    status: 'approved' | 'denied' | 'expired';
    reason: string | null;
    decided_by?: string;
  }): void {
    this.audit.append({
      kind: 'approval',
      at: new Date().toISOString(),
      environment_id: this.id,
      ...entry,
    });
  }

  /** Records controller lifecycle hook runs (environment and interaction start/end). */
  recordLifecycle(records: readonly LifecycleHookRecord[]): void {
    for (const record of records)
      this.audit.append({ kind: 'lifecycle_hook', at: new Date().toISOString(), ...record });
  }

  /** Everything recorded for this environment so far, from its audit log. */
  records(): AuditEntry[] {
    return readAuditLog(this.audit.path);
  }

  /** Lets go of the environment without removing it (the controller is stopping; see Controller.detach). */
  async detach(): Promise<void> {
    this.deleted = true;
    this.audit.close();
    await this.sandbox.disconnect();
  }

  /**
   * Removes the container and volumes without waiting for a call in flight (it fails); the audit log
   * records the deletion and stays.
   */
  async destroyNow(): Promise<void> {
    if (this.deleted) return;
    this.deleted = true;
    await this.sandbox.destroy();
    this.recordEvent('deleted', { detail: 'interrupted' });
    this.audit.close();
  }

  /** Removes the container and volumes. The audit log stays. */
  async delete(actor?: string): Promise<void> {
    if (this.deleted) return;
    this.deleted = true;
    await this.queue.run(async () => {
      await this.handlers.close();
      await this.sandbox.destroy();
      this.recordEvent('deleted', { actor });
      this.audit.close();
    });
  }
}
