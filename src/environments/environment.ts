import type { HooksConfig } from '../config/hooks-config.js';
import type { PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import { runPostHooks, type HookCallContext } from '../hooks/hook-engine.js';
import type { Allowlist } from '../network/allowlist.js';
import type { EgressRecord } from '../network/egress-record.js';
import { EnvironmentEgress } from '../network/environment-egress.js';
import { ContextStore } from '../policies/context-store.js';
import type { LifecycleHookRecord } from '../policies/controller-record.js';
import type { HookRunner } from '../policies/runner.js';
import { newCallBudget, type AuditBudget } from '../record/audit-bound.js';
import { AuditLog, readAuditLog, type AuditEntry } from '../record/audit-log.js';
import type { Logger } from '../record/logger.js';
import type { Observation } from '../record/observations.js';
import type { HookRecord } from '../record/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { SANDBOX_PATHS } from '../sandbox/sandbox-options.js';
import { resolveToolCall, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { ToolCall, ToolResult } from '../tools/types.js';
import type { ApprovalState, Approver } from './approvals.js';
import { runGates } from './gate-run.js';
import { hooksConfigOf, hooksJsonOf } from './hooks-config-of.js';

export { hooksConfigOf, hooksJsonOf };
import { SandboxHandlers, type HookProcessSettings } from './sandbox-handlers.js';
import { SerialQueue } from './serial-queue.js';
import { liveOutputOf } from './live-output.js';
import { networkStateOf, replacementAllowlist, type NetworkState } from './network-change.js';
import { withToolEnv } from './tool-env.js';
import { WorkspaceFiles } from './workspace-files.js';

/** What one tool call came to (the `--json` shape of docs/contract.md §10, plus the records in full). */
export interface CallOutcome {
  environment_id: string;
  call_id: string;
  /** The call that ran: as the caller sent it, or as controller hooks rewrote it (see `original_args`). */
  tool_call: ToolCall;
  /** True when a pre hook denied the call: the tool did not run. */
  blocked: boolean;
  /** The deny reason; the model sees it as the call's error result. */
  reason: string | null;
  /** The tool's result, or null when blocked. */
  result: ToolResult | null;
  /** The post payload's `error` text, when the tool wrote to stderr or failed. */
  error?: string;
  /**
   * What the model is shown: the result after controller hooks' presentation rewrites (the raw one
   * stays in `result`); for a failed call, with `error` holding the (possibly reworded) error text.
   * Null when blocked: the model is shown `reason` as an error.
   */
  presented: ToolResult | null;
  /** True when the call was blocked or the tool failed (file error, non-zero exit, timeout). */
  is_error: boolean;
  /** The arguments as the caller sent them, when a controller hook or `updatedInput` rewrote them. */
  original_args?: Record<string, unknown>;
  /** Set when a pre hook answered `ask` (docs/contract.md §11): where its approval stands. */
  approval?: ApprovalState;
  /** What hooks added to what the model is shown (`additionalContext`, docs/dialects.md). */
  additional_context?: string[];
  /** Controller hooks first, then the sandbox's, in the order they ran. */
  hooks: HookRecord[];
  /** Who acted, when not the owner (see CallOptions.actor). */
  actor?: string;
}

/** What the controller wants to hear of an environment (to keep its state file current). */
export interface EnvironmentEvents {
  /** The gates were replaced; the new hooks.json text (null: none). */
  onGatesReplaced?(hooksJson: string | null): void;
  /** A call started: the environment is in use. */
  onUsed?(): void;
  /** Hook runs, calls and egress, as they are recorded (for metrics and the console). */
  observe?(observation: Observation): void;
}

export type { HookProcessSettings } from './sandbox-handlers.js';

/** Options of one call. */
export interface CallOptions {
  /** The interaction the call belongs to, for controller hooks' context. @default null */
  interactionId?: string | null;
  /** The interaction's context store (a child of the environment's). */
  interactionStore?: ContextStore;
  /** Settles `ask` answers; without one an `ask` blocks ("approval required: …"). */
  approver?: Approver;
  /** The call id to use (a call re-run after its approval keeps its id). @default a new one */
  callId?: string;
  /**
   * Who acts, when not the owner (an admin acting on a tenant's environment): recorded with the
   * call in the audit log. @default the owner
   */
  actor?: string;
  /**
   * Told each chunk `code_execution` writes to stdout while it runs (docs/environments.md, "Live
   * output"); the result still holds the whole (capped) output. @default none
   */
  onStdout?: (chunk: string, callId: string) => void;
  /** As `onStdout`, for stderr. @default none */
  onStderr?: (chunk: string, callId: string) => void;
}

/** A call failed (rather than merely wrote to stderr): a file error, a non-zero exit, a timeout. */
function failed(result: ToolResult): boolean {
  return (
    typeof result.error === 'string' ||
    result.timed_out === true ||
    (typeof result.exit_code === 'number' && result.exit_code !== 0)
  );
}

/** The text of the `.agents/hooks.json` source, or null when there is none. */

/**
 * One live environment: its sandbox, its gates, its settings and its audit log. Calls run one at a
 * time, through the gates, and every hook run is recorded.
 */
export class Environment {
  private gates: HooksConfig;
  private readonly queue = new SerialQueue();
  /** When a call last started (ms since the epoch); idle-expiry goes by it. */
  lastUsedAt = Date.now();
  private readonly handlers: SandboxHandlers;
  private deleted = false;
  /** The environment level of the controller hooks' context store. */
  readonly store = new ContextStore();
  /** Files in and out of /workspace (docs/environments.md, "Files"). */
  readonly files: WorkspaceFiles;

  constructor(
    readonly sandbox: Sandbox,
    gates: HooksConfig,
    readonly vocabulary: VocabularyId,
    private readonly settings: ToolRunSettings,
    private readonly audit: AuditLog,
    private readonly logger: Logger,
    /** The operator's controller-side hooks and policies; they run before the sandbox gates. */
    private readonly controllerHooks?: HookRunner,
    private readonly events: EnvironmentEvents = {},
    /** The tenant that owns it (docs/tenants.md); null: none. */
    readonly tenant: string | null = null,
    /** Whether it came from the warm pool. */
    readonly pooled = false,
    private readonly hookProcesses: HookProcessSettings = { prestart: true },
    /** Whether files-API changes meet the gates (docs/environments.md, "Files and the gates"). */
    filesApiGates = true,
  ) {
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
    this.handlers.prestartNext();
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
      gated: filesApiGates,
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
      try {
        return await this.runCall(verbatim, resolved, options);
      } finally {
        this.handlers.noteTool(resolved.tool.name);
        if (!this.deleted) this.handlers.prestartNext();
      }
    });
  }

  private record(hook: HookRecord, budget?: AuditBudget): void {
    this.audit.append({ kind: 'hook', at: new Date().toISOString(), ...hook }, budget);
    this.logger.info(hook, 'hook run');
    this.events.observe?.({ kind: 'hook_run', at: Date.now(), record: hook });
  }

  private async runCall(
    verbatim: ToolCall,
    checked: ReturnType<typeof resolveToolCall>,
    options: CallOptions,
  ): Promise<CallOutcome> {
    // A call re-run after its approval keeps its id; else the id its prestarted hooks were given.
    const callId = options.callId ?? this.handlers.takeCallId();
    // What one call may add to the audit log is bounded (docs/operations.md, Audit logs).
    const budget = newCallBudget();
    const record = (hook: HookRecord) => this.record(hook, budget);
    const outcome: CallOutcome = {
      environment_id: this.id,
      call_id: callId,
      tool_call: verbatim,
      blocked: false,
      reason: null,
      result: null,
      presented: null,
      is_error: false,
      hooks: [],
      ...(options.actor === undefined ? {} : { actor: options.actor }),
    };
    // Controller hooks and policies first: a refusal there means the sandbox is never asked.
    let call = verbatim;
    let resolved = checked;
    const scope = this.controllerHooks && {
      environmentId: this.id,
      interactionId: options.interactionId ?? null,
      callId,
      store: (options.interactionStore ?? this.store).createChild('call'),
    };
    if (this.controllerHooks && scope) {
      const pre = await this.controllerHooks.beforeToolCall(scope, verbatim);
      pre.records.forEach(record);
      outcome.hooks.push(...pre.records);
      if (pre.args !== pre.originalArgs) {
        outcome.original_args = verbatim.args;
        call = { name: verbatim.name, args: pre.args };
        outcome.tool_call = call;
      }
      if (pre.blocked)
        return this.finish(budget, {
          ...outcome,
          blocked: true,
          reason: pre.reason,
          is_error: true,
        });
    }
    if (call !== verbatim) {
      // Rewritten arguments are checked again, as the caller's were.
      try {
        resolved = resolveToolCall(call, this.vocabulary);
      } catch (error) {
        const reason = `a controller hook rewrote the arguments into an invalid call: ${(error as Error).message}`;
        return this.finish(budget, { ...outcome, blocked: true, reason, is_error: true });
      }
    }
    const context: HookCallContext = {
      environmentId: this.id,
      callId,
      toolName: resolved.tool.name,
      stateDir: SANDBOX_PATHS.stateDir,
    };
    const gates = this.gates;
    const pre = await runGates({
      gates,
      executor: this.handlers,
      call,
      resolved,
      vocabulary: this.vocabulary,
      context,
      interactionId: options.interactionId ?? null,
      approver: options.approver,
      onRecord: record,
    });
    outcome.hooks.push(...pre.records);
    if (pre.approval) outcome.approval = pre.approval;
    if (pre.additionalContext.length > 0) outcome.additional_context = pre.additionalContext;
    if (pre.call !== call) {
      // A dialect hook's updatedInput: the call runs rewritten, and the record keeps the original.
      outcome.original_args ??= call.args;
      call = pre.call;
      outcome.tool_call = call;
    }
    if (pre.blocked)
      return this.finish(budget, { ...outcome, blocked: true, reason: pre.reason, is_error: true });
    const { tool, args } = pre.resolved;

    const request = tool.request(args, this.settings);
    this.handlers.noteTool(
      tool.name,
      request.op === 'run_code' ? request.body.language : undefined,
    );
    const live = liveOutputOf(request.op, callId, options);
    const answer = await this.sandbox.request(
      request.op,
      withToolEnv(
        request.op,
        live ? { ...request.body, stream_output: true } : request.body,
        this.settings.env,
      ) as typeof request.body,
      request.answerTimeoutMs,
      live,
    );
    const result = tool.result(answer);
    outcome.result = result;
    const error = tool.errorOf(result);
    if (error !== undefined) outcome.error = error;
    const postRun = { result, ...(error === undefined ? {} : { error }) };
    const post = await runPostHooks(gates, this.handlers, call, postRun, context, record);
    outcome.hooks.push(...post.records);
    if (post.additionalContext.length > 0)
      outcome.additional_context = [
        ...(outcome.additional_context ?? []),
        ...post.additionalContext,
      ];

    outcome.is_error = failed(result);
    outcome.presented = result;
    if (this.controllerHooks && scope) {
      if (outcome.is_error) {
        // Presentation rewrites (redact-secrets, docs/policies.md) apply to a failed call's result
        // too: a secret in the output of a failing command must not reach the model either. The
        // error text is then taken from the rewritten result and handed to tool-error hooks.
        const shown = await this.controllerHooks.afterToolCall(scope, call, result);
        shown.records.forEach(record);
        outcome.hooks.push(...shown.records);
        if (shown.withheld) {
          outcome.presented = shown.presented;
          return this.finish(budget, outcome);
        }
        const shownError =
          shown.presented === result ? error : (tool.errorOf(shown.presented) ?? error);
        const reworded = await this.controllerHooks.onToolError(
          scope,
          call,
          shownError ?? 'the tool call failed',
        );
        reworded.records.forEach(record);
        outcome.hooks.push(...reworded.records);
        outcome.presented = { ...shown.presented, error: reworded.message };
      } else {
        const shown = await this.controllerHooks.afterToolCall(scope, call, result);
        shown.records.forEach(record);
        outcome.hooks.push(...shown.records);
        outcome.presented = shown.presented;
        outcome.is_error = shown.withheld;
      }
    }
    return this.finish(budget, outcome);
  }

  private finish(budget: AuditBudget, outcome: CallOutcome): CallOutcome {
    this.audit.append(
      {
        kind: 'tool_call',
        at: new Date().toISOString(),
        environment_id: this.id,
        call_id: outcome.call_id,
        tool_call: outcome.original_args
          ? { ...outcome.tool_call, args: outcome.original_args }
          : outcome.tool_call,
        ...(outcome.original_args ? { rewritten_args: outcome.tool_call.args } : {}),
        ...(outcome.actor === undefined ? {} : { actor: outcome.actor }),
        blocked: outcome.blocked,
        reason: outcome.reason,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(outcome.result === null ? {} : { result: outcome.result }),
        ...(outcome.presented !== null && outcome.presented !== outcome.result
          ? { presented: outcome.presented }
          : {}),
        ...(outcome.approval ? { approval: outcome.approval } : {}),
        ...(outcome.additional_context ? { additional_context: outcome.additional_context } : {}),
      },
      budget,
    );
    this.events.observe?.({
      kind: 'tool_call',
      at: Date.now(),
      environment_id: this.id,
      call_id: outcome.call_id,
      tool: outcome.tool_call.name,
      outcome: outcome.blocked ? 'blocked' : outcome.is_error ? 'error' : 'ok',
      reason: outcome.reason,
      hooks: outcome.hooks,
    });
    return outcome;
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
      if (sources.some((source) => source.area === 'workspace'))
        await this.sandbox.addWorkspaceSources(sources);
      if (newGates) {
        this.handlers.replacingGates();
        await this.sandbox.replaceAgents(agents);
        this.gates = newGates;
        this.handlers.gatesReplaced(newGates);
        this.events.onGatesReplaced?.(hooksJsonOf(agents));
        this.audit.append({
          kind: 'environment',
          at: new Date().toISOString(),
          environment_id: this.id,
          event: 'gates_replaced',
          detail: { files: agents.map((a) => a.absolutePath) },
        });
      }
    });
  }

  /** The network now: `"disabled"` or the allowlist's domains (docs/environments.md, "Network modes"). */
  get network(): NetworkState {
    return networkStateOf(this.egress);
  }

  /**
   * Replaces the network rules, between calls: a call in flight finishes under the rules it started
   * with, the next call gets the new ones (docs/environments.md, "Network modes").
   */
  async replaceNetwork(raw: unknown, field = 'network'): Promise<NetworkState> {
    this.assertLive();
    const allowlist = replacementAllowlist(this.egress, raw, field);
    return this.queue.run(async () => {
      if (allowlist) this.egress?.setAllowlist(allowlist);
      const state = this.network;
      this.audit.append({
        kind: 'environment',
        at: new Date().toISOString(),
        environment_id: this.id,
        event: 'network_replaced',
        detail: state,
      });
      return state;
    });
  }

  /** Records an environment event in the audit log. */
  recordEvent(event: 'created' | 'reattached'): void {
    this.audit.append({
      kind: 'environment',
      at: new Date().toISOString(),
      environment_id: this.id,
      event,
    });
  }

  /** Records an approver's answer to a call that waited (docs/dialects.md, "ask"). */
  recordApproval(entry: {
    call_id: string;
    interaction_id: string;
    status: 'approved' | 'denied' | 'expired';
    reason: string | null;
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
  detach(): void {
    this.deleted = true;
    this.sandbox.disconnect();
    this.audit.close();
  }

  /**
   * Removes the container and volumes without waiting for a call in flight (it fails); the audit log
   * records the deletion and stays.
   */
  async destroyNow(): Promise<void> {
    if (this.deleted) return;
    this.deleted = true;
    await this.sandbox.destroy();
    this.audit.append({
      kind: 'environment',
      at: new Date().toISOString(),
      environment_id: this.id,
      event: 'deleted',
      detail: 'interrupted',
    });
    this.audit.close();
  }

  /** Removes the container and volumes. The audit log stays. */
  async delete(actor?: string): Promise<void> {
    if (this.deleted) return;
    this.deleted = true;
    await this.queue.run(async () => {
      await this.handlers.close();
      await this.sandbox.destroy();
      this.audit.append({
        kind: 'environment',
        at: new Date().toISOString(),
        environment_id: this.id,
        event: 'deleted',
        ...(actor === undefined ? {} : { actor }),
      });
      this.audit.close();
    });
  }
}
