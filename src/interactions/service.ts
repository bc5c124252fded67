import { liveOutputListeners } from './live-output-events.js';
import { parseToolEnv } from '../environments/tool-env.js';
import type { NetworkState } from '../environments/network-change.js';
import { z } from 'zod';
import { placeSources, type InlineSource, type PlacedSource } from '../config/sources.js';
import type { Controller } from '../environments/controller.js';
import { hooksConfigOf, type Environment } from '../environments/environment.js';
import { parseNetworkOptions, type Allowlist } from '../network/allowlist.js';
import { SystemError, toHookboxError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { toolsOf, type VocabularyId } from '../tools/registry.js';
import type { ToolCall } from '../tools/types.js';
import type {
  ConversationTurn,
  DriverContext,
  InteractionInput,
  ModelDriver,
  ModelTool,
  ToolCallReport,
} from './driver.js';
import { DriverRegistry } from './drivers/index.js';
import {
  answeredInteraction,
  ApprovalPause,
  approvalTtlFromEnv,
  checkApprovalItems,
  InteractionApprover,
  settleApprovals,
  shownApproval,
  withCurrentApprovals,
} from './approval-flow.js';
import { MemoryApprovalStore, type ApprovalStore, type PendingApproval } from './approval-store.js';
import { SqliteInteractionStore } from '../state/sqlite-interaction-store.js';
import { SqliteApprovalStore } from '../state/sqlite-approval-store.js';
import { DEFAULT_ENVIRONMENT_TTL_MS, EnvironmentLeases } from './leases.js';
import { parseInteractionRequest, type ParsedInteractionRequest } from './request.js';
import {
  SUPPORTED_TOOL_TYPES,
  type EnvironmentConfig,
  type EnvironmentInfo,
  type Interaction,
  type InteractionEvent,
  type Step,
} from './schema.js';
import {
  historyOf,
  newInteractionId,
  outputTextOf,
  refusedReport,
  reportOf,
  stepsOf,
  userTextOf,
} from './steps.js';
import {
  DEFAULT_MAX_STORED_BYTES,
  DEFAULT_MAX_STORED_INTERACTIONS,
  MemoryInteractionStore,
  type InteractionStore,
} from './store.js';
import { canSee, notFoundError } from '../tenants/ownership.js';
import type { QuotaBook } from '../tenants/quotas.js';
import type { WorkspaceDisk } from '../tenants/workspace-disk.js';
import type { Caller } from '../tenants/tenant.js';

/** A driver's loop stops after this many model turns unless `HOOKBOX_MAX_STEPS` says otherwise. */
export const DEFAULT_MAX_STEPS = 20;

/** Settings read from the environment (documented in the README, "HTTP API"). */
export interface InteractionSettings {
  /** `HOOKBOX_ENVIRONMENT_TTL_MS`: idle environments are removed after this. @default 1800000 */
  environmentTtlMs: number;
  /** `HOOKBOX_MAX_STEPS`: model turns per interaction. @default 20 */
  maxSteps: number;
  /** `HOOKBOX_MAX_STORED_INTERACTIONS`: interactions kept in memory. @default 10000 */
  maxStoredInteractions: number;
  /** `HOOKBOX_MAX_STORED_BYTES`: about how many bytes of interactions are kept in memory. @default 256 MiB */
  maxStoredBytes: number;
}

function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number) {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new UserError(
      'invalid_argument',
      `${name}: must be a positive whole number (got ${JSON.stringify(text)})`,
      {
        details: { field: name },
      },
    );
  }
  return value;
}

export function interactionSettingsFromEnv(
  env: Record<string, string | undefined> = process.env,
): InteractionSettings {
  return {
    environmentTtlMs: positiveInteger(
      env,
      'HOOKBOX_ENVIRONMENT_TTL_MS',
      DEFAULT_ENVIRONMENT_TTL_MS,
    ),
    maxSteps: positiveInteger(env, 'HOOKBOX_MAX_STEPS', DEFAULT_MAX_STEPS),
    maxStoredInteractions: positiveInteger(
      env,
      'HOOKBOX_MAX_STORED_INTERACTIONS',
      DEFAULT_MAX_STORED_INTERACTIONS,
    ),
    maxStoredBytes: positiveInteger(env, 'HOOKBOX_MAX_STORED_BYTES', DEFAULT_MAX_STORED_BYTES),
  };
}

export interface InteractionServiceOptions {
  controller: Controller;
  logger?: Logger;
  store?: InteractionStore;
  drivers?: DriverRegistry;
  /** @default HOOKBOX_ENVIRONMENT_TTL_MS, else 30 minutes */
  environmentTtlMs?: number;
  /** How often idle environments are looked for. @default min(TTL / 4, 60 s) */
  sweepIntervalMs?: number;
  /** @default HOOKBOX_MAX_STEPS, else 20 */
  maxSteps?: number;
  /** `close()` also deletes every environment of the controller. @default true */
  closeController?: boolean;
  /**
   * Where pending approvals are kept (docs/dialects.md, "ask").
   * @default the state file's, when `store` is one; else in memory
   */
  approvals?: ApprovalStore;
  /** @default HOOKBOX_APPROVAL_TTL_MS, else one hour */
  approvalTtlMs?: number;
  /**
   * Whether a hook's `ask` waits for an approver (`requires_action`). `hookbox run` without a
   * server has nobody to answer: then `ask` blocks with "approval required: …". @default true
   */
  approver?: boolean;
  /**
   * Per-tenant quotas and the server-wide ceiling, applied to requests made with a caller
   * (docs/tenants.md). @default none (no quotas: the library and `hookbox run`)
   */
  quotas?: QuotaBook;
  /** Measures workspaces for the tenants' `disk_mb` quotas. @default none (not enforced) */
  workspaceDisk?: WorkspaceDisk;
}

export type InteractionListener = (event: InteractionEvent) => void;

/** An interaction checked and set up (its environment exists), ready to run. */
export interface PreparedInteraction {
  readonly interaction: Interaction;
  readonly environment: Environment;
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

type Target =
  | { kind: 'new'; config?: EnvironmentConfig }
  | { kind: 'existing'; id: string; field: string; config?: EnvironmentConfig };

/** JSON Schema of a tool's arguments, as a model sees it. */
export function modelToolsOf(vocabulary: VocabularyId, enabled: readonly string[]): ModelTool[] {
  return toolsOf(vocabulary)
    .filter((tool) => enabled.includes(tool.name))
    .map((tool) => {
      const parameters: Record<string, unknown> = z.toJSONSchema(tool.args, { io: 'input' });
      delete parameters.$schema;
      return { name: tool.name, description: tool.description, parameters };
    });
}

/** The tools an interaction may call: the file tools always, `code_execution` when enabled. */
export function enabledToolsOf(
  tools: ParsedInteractionRequest['tools'],
  vocabulary: VocabularyId,
): string[] {
  const all = toolsOf(vocabulary).map((tool) => tool.name);
  if (tools === undefined) return all;
  tools.forEach((tool, index) => {
    if (!(SUPPORTED_TOOL_TYPES as readonly string[]).includes(tool.type)) {
      throw new UserError(
        'unsupported',
        `tools[${index}].type: ${JSON.stringify(tool.type)} is not available in hookbox; the tool types it offers are ${SUPPORTED_TOOL_TYPES.map((t) => JSON.stringify(t)).join(', ')} (the file tools come with every environment)`,
        { details: { field: `tools[${index}].type` } },
      );
    }
  });
  const listed = new Set(tools.map((tool) => tool.type));
  return all.filter((name) => name !== 'code_execution' || listed.has('code_execution'));
}

/** Prefixes a sources error with where the sources sit in the request. */
function atSources(error: unknown, prefix: string): unknown {
  if (!(error instanceof UserError)) return error;
  const field = error.details.field;
  const rewrite = (text: string) => text.replace(/^sources(?=[[.:]|$)/, `${prefix}.sources`);
  return new UserError(error.code, rewrite(error.message), {
    details: { ...error.details, ...(field ? { field: rewrite(field) } : {}) },
  });
}

/** Checks the gates of a request's sources before anything is made; errors name the source. */
function checkGates(
  placed: PlacedSource[],
  sources: InlineSource[],
  prefix: string,
  allowlist?: Allowlist,
): void {
  try {
    hooksConfigOf(placed, allowlist);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    const index = placed.findIndex((s) => s.area === 'agents' && s.path === 'hooks.json');
    const at = `${prefix}.sources[${index}].content`;
    throw new UserError(error.code, `${at} (${sources[index]?.target}): ${error.message}`, {
      details: { ...error.details, field: at, hooks_path: error.details.field },
    });
  }
}

/**
 * Runs interactions (docs/contract.md §9): checks a request, finds or makes its environment, runs its driver,
 * records the steps. Used by `hookbox serve` and by `hookbox run` without a server.
 */
export class InteractionService {
  readonly controller: Controller;
  readonly leases: EnvironmentLeases;
  private readonly logger: Logger | undefined;
  private readonly store: InteractionStore;
  private readonly drivers: DriverRegistry;
  private readonly maxSteps: number;
  private readonly closeController: boolean;
  private readonly running = new Set<Promise<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly abort = new AbortController();
  private closing: Promise<void> | undefined;
  private readonly approvals: ApprovalStore;
  private readonly approvalTtlMs: number;
  private readonly approverEnabled: boolean;
  private readonly quotas: QuotaBook | undefined;
  /** The workspace measurements behind the `disk_mb` quota, when enforced. */
  readonly workspaceDisk: WorkspaceDisk | undefined;

  constructor(options: InteractionServiceOptions) {
    const settings = interactionSettingsFromEnv();
    this.controller = options.controller;
    this.logger = options.logger;
    this.store =
      options.store ??
      new MemoryInteractionStore(settings.maxStoredInteractions, settings.maxStoredBytes);
    this.quotas = options.quotas;
    this.workspaceDisk = options.workspaceDisk;
    this.drivers = options.drivers ?? new DriverRegistry();
    this.maxSteps = options.maxSteps ?? settings.maxSteps;
    this.closeController = options.closeController ?? true;
    this.approvals =
      options.approvals ??
      (this.store instanceof SqliteInteractionStore
        ? new SqliteApprovalStore(this.store.state.path)
        : new MemoryApprovalStore());
    this.approvalTtlMs = options.approvalTtlMs ?? approvalTtlFromEnv();
    this.approverEnabled = options.approver ?? true;
    const ttl = options.environmentTtlMs ?? settings.environmentTtlMs;
    this.leases = new EnvironmentLeases(ttl);
    const every = options.sweepIntervalMs ?? Math.max(250, Math.min(ttl / 4, 60_000));
    this.sweeper = setInterval(() => void this.sweep(), every);
    this.sweeper.unref();
  }

  /**
   * Checks a request and sets up its environment: every check that can be made is made before an
   * environment is made or changed, so a bad request leaves nothing behind.
   */
  async prepare(body: unknown, caller?: Caller): Promise<PreparedInteraction> {
    if (this.closing)
      throw new SystemError('engine_unavailable', 'hookbox is shutting down', { retryable: true });
    const request = parseInteractionRequest(body);
    if (caller && this.quotas && this.workspaceDisk) {
      const mine = this.controller
        .listEnvironments()
        .filter((environment) => environment.tenant === caller.tenant)
        .map((environment) => environment.id);
      this.quotas.checkDisk(caller, this.workspaceDisk.usedBy(mine));
    }
    const release = caller && this.quotas ? this.quotas.startInteraction(caller) : () => {};
    try {
      return await this.prepareAs(request, caller, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  private async prepareAs(
    request: ParsedInteractionRequest,
    caller: Caller | undefined,
    release: () => void,
  ): Promise<PreparedInteraction> {
    const resolved = await this.drivers.resolve(request.agent);
    const { driver } = resolved;
    if (!driver.executesInputCalls && Array.isArray(request.input)) {
      const index = request.input.findIndex(
        (item) => item.type !== 'text' && item.type !== 'approval',
      );
      if (index >= 0) {
        throw new UserError(
          'invalid_argument',
          `input[${index}].type: ${JSON.stringify(request.input[index]!.type)} items are run only by the "scripted" agent; ${JSON.stringify(request.agent)} takes text`,
          { details: { field: `input[${index}].type` } },
        );
      }
    }
    const answersApprovals =
      Array.isArray(request.input) && request.input.some((item) => item.type === 'approval');
    if (
      !driver.executesInputCalls &&
      !answersApprovals &&
      userTextOf(request.input as string | Record<string, unknown>[]).every(
        (part) => part.text.trim() === '',
      )
    ) {
      throw new UserError(
        'invalid_argument',
        `input: the agent ${JSON.stringify(request.agent)} runs a model, which needs text: give input as a string or as items of type "text"`,
        { details: { field: 'input' } },
      );
    }

    const previous = request.previous_interaction_id
      ? await this.interactionAt(request.previous_interaction_id, 'previous_interaction_id', caller)
      : undefined;
    const answered = await checkApprovalItems(request.input, previous, this.approvals);
    const target = this.targetOf(request, previous);
    const config = target.config;
    const prefix = 'environment';
    // A network (docs/contract.md §7) is chosen when the environment is made; an existing one keeps its own.
    const network =
      config?.network !== undefined &&
      config.network !== 'disabled' &&
      config.network.allowlist.length > 0
        ? config.network
        : undefined;
    if (config?.sandbox !== undefined && target.kind === 'existing') {
      throw new UserError(
        'invalid_argument',
        `${prefix}.sandbox: an existing environment keeps the sandbox it was made with; give sandbox only when making one`,
        { details: { field: `${prefix}.sandbox` } },
      );
    }
    if (network && target.kind === 'existing') {
      throw new UserError(
        'invalid_argument',
        `${prefix}.network: an existing environment keeps the network it was made with; give network only when making one`,
        { details: { field: `${prefix}.network` } },
      );
    }
    // A template (docs/templates.md) is chosen when the environment is made, like its network.
    const template = config?.template;
    if (template !== undefined && target.kind === 'existing') {
      throw new UserError(
        'invalid_argument',
        `${prefix}.template: an existing environment keeps the template it was made with; give template only when making one`,
        { details: { field: `${prefix}.template` } },
      );
    }
    if (template !== undefined)
      await this.controller.templates.resolve(template, `${prefix}.template`);
    // Shared state: the environment may be another replica's; take it on (docs/kubernetes.md).
    if (target.kind === 'existing') await this.adoptEnvironment(target.id);
    if (config?.env !== undefined && target.kind === 'existing') {
      throw new UserError(
        'invalid_argument',
        `${prefix}.env: an existing environment keeps the variables it was made with; give env only when making one`,
        { details: { field: `${prefix}.env` } },
      );
    }
    const env = config?.env === undefined ? undefined : parseToolEnv(config.env, `${prefix}.env`);
    const allowlist =
      target.kind === 'existing'
        ? this.environmentAt(target.id, target.field, caller).allowlist
        : network && parseNetworkOptions(network, `${prefix}.network`);
    const sources = config?.sources ?? [];
    let placed: PlacedSource[];
    try {
      placed = placeSources(sources);
    } catch (error) {
      throw atSources(error, prefix);
    }
    checkGates(placed, sources, prefix, allowlist);
    const history = previous ? historyOf(await this.chainOf(previous)) : [];

    // Checks done that need no environment; from here on things are made or changed.
    let environment: Environment | undefined;
    if (target.kind === 'existing') {
      environment = this.environmentAt(target.id, target.field, caller);
      this.leases.acquire(environment.id);
    }
    try {
      const vocabulary =
        environment?.vocabulary ??
        driver.vocabularyFor?.(request.input as InteractionInput, resolved.vocabulary) ??
        resolved.vocabulary;
      const enabledTools = enabledToolsOf(request.tools, vocabulary);
      driver.checkInput?.(request.input, { vocabulary, enabledTools });
      if (environment) {
        if (placed.length > 0) await environment.addSources(placed);
      } else {
        environment = await this.createFor(caller, {
          sources,
          vocabulary,
          ...(network ? { network } : {}),
          ...(template !== undefined ? { template } : {}),
          ...(config?.sandbox?.runtime ? { sandbox: { runtime: config.sandbox.runtime } } : {}),
          ...(env ? { env } : {}),
        });
        this.leases.acquire(environment.id);
      }
      const now = new Date().toISOString();
      const interaction: Interaction = {
        id: newInteractionId(),
        object: 'interaction',
        status: 'in_progress',
        agent: request.agent,
        environment_id: environment.id,
        ...(previous ? { previous_interaction_id: previous.id } : {}),
        steps: [],
        output_text: '',
        created: now,
        updated: now,
      };
      await this.store.put(interaction, caller?.tenant ?? null);
      this.logger?.info(
        {
          interaction: interaction.id,
          environment: environment.id,
          agent: request.agent,
          tenant: caller?.tenant,
        },
        'interaction created',
      );
      return {
        interaction,
        environment,
        driver,
        request,
        history,
        tools: modelToolsOf(vocabulary, enabledTools),
        enabledTools,
        answered,
        ...(caller ? { caller } : {}),
        release,
      };
    } catch (error) {
      if (environment) this.leases.release(environment.id);
      throw error;
    }
  }

  /**
   * Makes an environment owned by the caller, within its quotas and the server's ceiling: the
   * places are reserved before anything is made, so concurrent requests cannot overshoot, and a
   * refused request makes nothing.
   */
  private async createFor(
    caller: Caller | undefined,
    options: Parameters<Controller['createEnvironment']>[0] & object,
  ): Promise<Environment> {
    if (!caller || !this.quotas)
      return this.controller.createEnvironment({ ...options, tenant: caller?.tenant ?? null });
    const live = this.controller.listEnvironments();
    const mine = live.filter((environment) => environment.tenant === caller.tenant).length;
    // A request the warm pool would serve counts against the tenant's pooled hand-outs per minute:
    // past it, a 429 (docs/tenants.md, "Quotas"), so no tenant drains the pool the others rely on.
    const pool = this.controller.pools?.get(options.template ?? 'default');
    if (pool && pool.size > 0 && options.sandbox === undefined && options.network === undefined)
      this.quotas.checkPooled(caller);
    const reservation = this.quotas.reserveEnvironment(caller, mine, live.length);
    try {
      const environment = await this.controller.createEnvironment({
        ...options,
        tenant: caller.tenant,
      });
      if (environment.pooled) this.quotas.recordPooled(caller);
      return environment;
    } finally {
      reservation();
    }
  }

  /**
   * Runs a prepared interaction's driver to the end. A driver failure does not throw: the
   * interaction ends `failed` with the error, and its steps so far are kept.
   */
  run(prepared: PreparedInteraction, listener?: InteractionListener): Promise<Interaction> {
    const work = this.runInner(prepared, listener);
    this.running.add(work);
    void work.finally(() => {
      this.running.delete(work);
      prepared.release();
    });
    return work;
  }

  /** {@link prepare} then {@link run}. */
  async create(body: unknown, listener?: InteractionListener): Promise<Interaction> {
    return this.run(await this.prepare(body), listener);
  }

  private async runInner(
    prepared: PreparedInteraction,
    listener?: InteractionListener,
  ): Promise<Interaction> {
    const { environment, driver, request } = prepared;
    const interaction = structuredClone(prepared.interaction);
    const actor =
      prepared.caller && prepared.caller.tenant !== environment.tenant
        ? prepared.caller.tenant
        : undefined;
    const emit = (event: InteractionEvent) => {
      try {
        listener?.(event);
      } catch (error) {
        this.logger?.warn({ error: (error as Error).message }, 'interaction listener failed');
      }
    };
    // Saving is incremental (docs/tenants.md, "Output and memory"): each step is saved once, as it
    // comes, and never copied; a step is not changed after it is added.
    let saving = Promise.resolve();
    const save = (work: () => Promise<void>) => {
      saving = saving.then(work).catch((error: unknown) => {
        this.logger?.error({ error: (error as Error).message }, 'saving an interaction failed');
      });
    };
    // For the metrics and the console (docs/console.md): the interaction's status as it changes.
    const observe = () =>
      this.controller.observers.emit({
        kind: 'interaction',
        at: Date.now(),
        interaction_id: interaction.id,
        environment_id: interaction.environment_id,
        agent: interaction.agent,
        status: interaction.status,
        steps: interaction.steps.length,
        denials: interaction.steps.filter((step) => 'blocked' in step && step.blocked === true)
          .length,
        created: interaction.created,
      });
    const addStep = (step: Step) => {
      interaction.steps.push(step);
      interaction.updated = new Date().toISOString();
      const index = interaction.steps.length - 1;
      save(() => this.store.appendStep(interaction.id, index, step));
      observe();
      emit({ event_type: 'step', index, step });
    };

    emit({ event_type: 'interaction.created', interaction: structuredClone(interaction) });
    observe();
    const text = userTextOf(request.input as string | Record<string, unknown>[]);
    if (text.length > 0) addStep({ type: 'user_input', content: text });

    // Controller hooks  see the interaction: its id and a context store of its own.
    const interactionStore = environment.store.createChild('interaction');
    const scope = {
      environmentId: environment.id,
      interactionId: interaction.id,
      store: interactionStore,
    };
    const runner = this.controller.hookRunner;

    const approver = this.approverEnabled
      ? new InteractionApprover(this.approvals, this.approvalTtlMs)
      : undefined;
    const callTool = async (call: ToolCall, callId?: string): Promise<ToolCallReport> => {
      let report: ToolCallReport;
      let originalArgs: Record<string, unknown> | undefined;
      let pending = false;
      const known = toolsOf(environment.vocabulary).some((tool) => tool.name === call.name);
      if (known && !prepared.enabledTools.includes(call.name)) {
        report = refusedReport(call, `${call.name} is not enabled for this interaction`);
      } else {
        try {
          const outcome = await environment.call(call, {
            interactionId: interaction.id,
            interactionStore,
            ...(approver ? { approver } : {}),
            ...(callId ? { callId } : {}),
            ...(actor === undefined ? {} : { actor }),
            // Streamed interactions see a code_execution's output as it comes.
            ...(listener ? liveOutputListeners(emit) : {}),
          });
          report = reportOf(outcome);
          originalArgs = outcome.original_args;
          pending = outcome.approval?.status === 'pending';
        } catch (error) {
          if (!(error instanceof UserError && error.code === 'invalid_tool_call')) throw error;
          report = refusedReport(call, error.message);
        }
      }
      this.leases.touch(environment.id);
      const [callStep, resultStep] = stepsOf(report, originalArgs);
      addStep(callStep);
      if (pending) {
        // docs/contract.md §11: the call waits for its approver; the interaction ends `requires_action`.
        const approval = await this.approvals.get(report.call_id);
        if (approval) throw new ApprovalPause(approval);
      }
      addStep(resultStep);
      return report;
    };

    const context: DriverContext = {
      agent: request.agent,
      input: request.input as DriverContext['input'],
      history: prepared.history,
      tools: prepared.tools,
      ...(request.system_instruction === undefined
        ? {}
        : { systemInstruction: request.system_instruction }),
      callTool,
      emitModelOutput: (output) =>
        addStep({ type: 'model_output', content: [{ type: 'text', text: output }] }),
      maxSteps: this.maxSteps,
      signal: this.abort.signal,
    };
    try {
      const started = runner ? await runner.onInteractionStart(scope) : undefined;
      if (started) environment.recordLifecycle(started.records);
      if (started?.refused) {
        interaction.status = 'failed';
        interaction.error = {
          code: 'interaction_refused',
          message: `a controller hook refused the interaction: ${started.reason ?? 'no reason given'}`,
        };
      } else {
        await settleApprovals({
          answered: prepared.answered,
          input: request.input,
          store: this.approvals,
          approver: approver ?? new InteractionApprover(this.approvals, this.approvalTtlMs),
          runCall: (call, callId) => callTool(call, callId),
          addBlocked: (report) => stepsOf(report).forEach(addStep),
          record: (approval, reason) =>
            environment.recordApproval({
              call_id: approval.call_id,
              interaction_id: approval.interaction_id,
              status: approval.status as 'approved' | 'denied' | 'expired',
              reason,
            }),
        });
        await this.markAnswered(prepared);
        // A model needs text to go on: a continuation of approvals alone ends with their calls
        // (docs/dialects.md, "ask"); the next text turn sees their results in the history.
        if (driver.executesInputCalls || text.length > 0) await driver.run(context);
        interaction.status = 'completed';
      }
    } catch (error) {
      if (error instanceof ApprovalPause) {
        interaction.status = 'requires_action';
        interaction.pending_approvals = [shownApproval(error.approval)];
      } else {
        const failure = toHookboxError(error);
        interaction.status = 'failed';
        interaction.error = { code: failure.code, message: failure.message };
        this.logger?.warn(
          { interaction: interaction.id, code: failure.code, error: failure.message },
          'interaction failed',
        );
      }
    } finally {
      if (runner) {
        const ended = await runner.onInteractionEnd(scope).catch((error: unknown) => {
          this.logger?.error({ error: (error as Error).message }, 'interaction_end hooks failed');
          return undefined;
        });
        if (ended) environment.recordLifecycle(ended.records);
      }
      this.leases.release(environment.id);
    }
    interaction.output_text = outputTextOf(interaction.steps);
    interaction.updated = new Date().toISOString();
    const head = {
      status: interaction.status,
      output_text: interaction.output_text,
      updated: interaction.updated,
      ...(interaction.error ? { error: interaction.error } : {}),
      ...(interaction.pending_approvals
        ? { pending_approvals: interaction.pending_approvals }
        : {}),
    };
    save(() => this.store.update(interaction.id, head));
    await saving;
    prepared.release();
    this.logger?.info(
      { interaction: interaction.id, status: interaction.status, steps: interaction.steps.length },
      'interaction ended',
    );
    observe();
    // No copy: the service is done with it, and an interaction of large outputs must not be held twice.
    emit({ event_type: 'interaction.complete', interaction });
    return interaction;
  }

  /**
   * A stored interaction; an unknown id, or one the caller may not see (docs/tenants.md,
   * "Ownership"), is the same 404 naming `field`.
   */
  async interactionAt(id: string, field = 'id', caller?: Caller): Promise<Interaction> {
    const visible = caller === undefined || canSee(await this.store.tenantOf(id), caller);
    const interaction = visible ? await this.store.get(id) : undefined;
    if (!interaction) throw notFoundError('interaction', id, field);
    return withCurrentApprovals(interaction);
  }

  /** The interaction a continuation answered shows its approvals' answers. */
  private async markAnswered(prepared: PreparedInteraction): Promise<void> {
    const previousId = prepared.interaction.previous_interaction_id;
    if (prepared.answered.length === 0 || !previousId) return;
    const previous = await this.store.get(previousId);
    const updated = previous && (await answeredInteraction(previous, this.approvals));
    // Saved whole again, keeping its owner (docs/tenants.md, "Ownership").
    if (updated) await this.store.put(updated, (await this.store.tenantOf(previousId)) ?? null);
  }

  /** The interaction and its predecessors, oldest first. */
  private async chainOf(last: Interaction): Promise<Interaction[]> {
    const chain = [last];
    const seen = new Set([last.id]);
    let current = last;
    while (current.previous_interaction_id && !seen.has(current.previous_interaction_id)) {
      const previous = await this.store.get(current.previous_interaction_id);
      if (!previous) break;
      seen.add(previous.id);
      chain.unshift(previous);
      current = previous;
    }
    return chain;
  }

  private targetOf(request: ParsedInteractionRequest, previous: Interaction | undefined): Target {
    const spec = request.environment;
    let target: Target;
    if (spec === undefined) {
      if (!previous) {
        throw new UserError(
          'invalid_argument',
          'environment: is required: "remote" for a new environment, an environment id, or {"type": "remote", "sources": [...]} (it may be left out only with previous_interaction_id)',
          { details: { field: 'environment' } },
        );
      }
      return { kind: 'existing', id: previous.environment_id, field: 'previous_interaction_id' };
    }
    if (typeof spec === 'string') {
      target =
        spec === 'remote' ? { kind: 'new' } : { kind: 'existing', id: spec, field: 'environment' };
    } else if (spec.environment_id !== undefined) {
      target = {
        kind: 'existing',
        id: spec.environment_id,
        field: 'environment.environment_id',
        config: spec,
      };
    } else {
      target = { kind: 'new', config: spec };
    }
    if (previous && (target.kind === 'new' || target.id !== previous.environment_id)) {
      const field = target.kind === 'new' ? 'environment' : target.field;
      throw new UserError(
        'invalid_argument',
        `${field}: previous_interaction_id ${previous.id} continues in its environment ${previous.environment_id}; give "environment": ${JSON.stringify(previous.environment_id)} or leave "environment" out`,
        { details: { field } },
      );
    }
    return target;
  }

  /**
   * A live environment; an unknown one, or one the caller may not see (docs/tenants.md,
   * "Ownership"), is a 404 naming `field` (saying if it expired only to those who could see it).
   * Every route that names an environment finds it here.
   */
  environmentAt(id: string, field: string, caller?: Caller): Environment {
    const found = this.controller.listEnvironments().find((e) => e.id === id);
    if (found && caller !== undefined && !canSee(found.tenant, caller))
      throw notFoundError('environment', id, field);
    const environment = found;
    if (!environment) {
      // Why it is gone is said only to those who could see it: ids must not be probeable.
      const why = canSee(this.leases.goneOwner(id), caller) ? this.leases.whyGone(id) : undefined;
      const reason =
        why === 'expired'
          ? ` (it expired after ${Math.round(this.leases.ttlMs / 1000)} s idle)`
          : why === 'deleted'
            ? ' (it was deleted)'
            : '';
      throw new UserError('not_found', `${field}: no environment ${JSON.stringify(id)}${reason}`, {
        details: { field },
      });
    }
    return environment;
  }

  /** An environment a request works in directly (the files API): found, and its idle time restarts. */
  environmentInUse(id: string, caller?: Caller): Environment {
    const environment = this.environmentAt(id, 'id', caller);
    this.leases.touch(id);
    return environment;
  }

  /** `PATCH /v1beta/environments/{id}/network`: new rules for the next call. */
  async replaceNetwork(
    id: string,
    body: unknown,
    caller?: Caller,
  ): Promise<{ environment_id: string; network: NetworkState }> {
    const environment = this.environmentInUse(id, caller);
    const network = await environment.replaceNetwork(body, 'body');
    this.logger?.info({ environment: id }, 'environment network replaced');
    return { environment_id: id, network };
  }

  /** `GET /v1beta/environments/{id}/network`. */
  networkOf(id: string, caller?: Caller): { environment_id: string; network: NetworkState } {
    return { environment_id: id, network: this.environmentAt(id, 'id', caller).network };
  }

  /**
   * With shared state, an environment another replica made is taken on here before a request
   * names it (Controller.adoptFromState); without, nothing happens.
   */
  async adoptEnvironment(id: string): Promise<void> {
    // Optional: test stand-ins for the controller need not have it.
    await this.controller.adoptFromState?.(id);
  }

  /** `GET /v1beta/environments/{id}`: its real state, asked of the engine. */
  async environmentInfo(id: string, caller?: Caller): Promise<EnvironmentInfo> {
    const environment = this.environmentAt(id, 'id', caller);
    const lost = await environment.sandbox.lostReason().catch(() => undefined);
    const lease = this.leases.track(id);
    const expires = this.leases.expiresAt(id);
    return {
      environment_id: id,
      type: 'remote',
      status: lost !== undefined ? 'lost' : lease.busy > 0 ? 'active' : 'idle',
      ...(lost !== undefined ? { lost_reason: lost } : {}),
      vocabulary: environment.vocabulary,
      hook_groups: environment.hooksConfig.groups.map((group) => group.name),
      created: new Date(lease.created).toISOString(),
      last_active: new Date(lease.lastActive).toISOString(),
      expires_at: expires === undefined ? null : new Date(expires).toISOString(),
      tenant: environment.tenant,
    };
  }

  /**
   * The live environments the caller may see (all of them without a caller, or for an admin), each
   * with its real state (a container killed from outside is `lost`).
   */
  async listEnvironments(caller?: Caller): Promise<
    {
      environment_id: string;
      type: 'remote';
      status: 'active' | 'idle' | 'lost';
      tenant: string | null;
    }[]
  > {
    return Promise.all(
      this.controller
        .listEnvironments()
        .filter((environment) => caller === undefined || canSee(environment.tenant, caller))
        .map(async (environment) => {
          const lost = await environment.sandbox.lostReason().catch(() => undefined);
          const busy = (this.leases.info(environment.id)?.busy ?? 0) > 0;
          return {
            environment_id: environment.id,
            type: 'remote' as const,
            status:
              lost !== undefined
                ? ('lost' as const)
                : busy
                  ? ('active' as const)
                  : ('idle' as const),
            tenant: environment.tenant,
          };
        }),
    );
  }

  /** `DELETE /v1beta/environments/{id}`: container and volumes removed (an interaction in it fails). */
  async deleteEnvironment(id: string, caller?: Caller): Promise<void> {
    await this.adoptEnvironment(id);
    const environment = this.environmentAt(id, 'id', caller);
    const actor = caller && caller.tenant !== environment.tenant ? caller.tenant : undefined;
    this.leases.forget(id, 'deleted', environment.tenant);
    await this.controller.deleteEnvironment(id, actor);
    this.logger?.info(
      { environment: id, tenant: environment.tenant, ...(actor ? { actor } : {}) },
      'environment deleted',
    );
  }

  /** Removes environments idle for the TTL; returns their ids. */
  async sweep(): Promise<string[]> {
    // Environments this service did not make (re-attached from the state file after a restart)
    // are tracked from their last use, so they expire too.
    for (const environment of this.controller.listEnvironments())
      if (!this.leases.info(environment.id))
        this.leases.track(environment.id, environment.lastUsedAt);
    const idle = this.leases.idle();
    for (const id of idle) {
      const live = this.controller.listEnvironments().find((e) => e.id === id);
      this.leases.forget(id, 'expired', live?.tenant ?? null);
      if (!live) continue;
      this.logger?.info({ environment: id, ttl_ms: this.leases.ttlMs }, 'environment expired');
      await this.controller.deleteEnvironment(id).catch((error: unknown) => {
        this.logger?.error(
          { environment: id, error: (error as Error).message },
          'removing an expired environment failed',
        );
      });
    }
    return idle;
  }

  /** Interactions running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Refuses new interactions, waits for those running, stops expiry and (unless
   * `closeController: false`) deletes every environment.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      this.workspaceDisk?.close();
      await Promise.allSettled([...this.running]);
      if (this.closeController) await this.controller.close();
    })();
    return this.closing;
  }
}
