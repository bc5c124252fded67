/** Running a prepared interaction: its driver's loop, its tool calls through the environment, its steps saved as they come. */
import { toHookboxError, UserError } from '../errors/index.js';
import type { Logger } from '../record/logger.js';
import { toolsOf } from '../tools/registry.js';
import type { ToolCall } from '../tools/types.js';
import {
  ApprovalPause,
  InteractionApprover,
  settleApprovals,
  shownApproval,
} from './approval-flow.js';
import type { ApprovalStore } from '../state/approvals.js';
import type { DriverContext, ToolCallReport } from './driver.js';
import { interactionFacts } from './interaction-facts.js';
import type { EnvironmentLeases } from './leases.js';
import { liveOutputListeners } from './live-output-events.js';
import type { InteractionListener, PreparedInteraction, RunEvent } from './prepared-interaction.js';
import type { Interaction, Step, Usage } from './schema.js';
import { outputTextOf, refusedReport, reportOf, stepsOf, userTextOf } from './steps.js';
import { markAnswered } from './stored-interactions.js';
import type { InteractionStore } from './store.js';
import type { ServiceController, ServiceEnvironment } from './service-controller.js';

/** What running an interaction needs of the service. */
export interface RunParts {
  readonly controller: Pick<ServiceController, 'observers' | 'hookRunner'>;
  readonly store: InteractionStore;
  readonly leases: EnvironmentLeases;
  readonly approvals: ApprovalStore;
  readonly approvalTtlMs: number;
  /** Whether a hook's `ask` waits for an approver (see InteractionServiceOptions.approver). */
  readonly approverEnabled: boolean;
  readonly maxSteps: number;
  /** Aborts the drivers' model requests. */
  readonly signal: AbortSignal;
  readonly logger: Logger | undefined;
}

/** How one run is watched and stopped. */
export interface RunOptions {
  /** Aborted by `POST /v1beta/interactions/{id}/cancel`: the run ends `cancelled`. */
  cancel?: AbortSignal;
  /** Send running code's output as events (a stream or a background run may be followed). */
  liveOutput?: boolean;
}

/**
 * Runs a prepared interaction's driver to the end. A driver failure does not throw: the
 * interaction ends `failed` with the error, and its steps so far are kept.
 */
export async function runInteraction(
  parts: RunParts,
  prepared: PreparedInteraction<ServiceEnvironment>,
  listener?: InteractionListener,
  options: RunOptions = {},
): Promise<Interaction> {
  const { environment, driver, request } = prepared;
  const interaction = structuredClone(prepared.interaction);
  const actor =
    prepared.caller && prepared.caller.tenant !== environment.tenant
      ? prepared.caller.tenant
      : undefined;
  const emit = (event: RunEvent) => {
    try {
      listener?.(event);
    } catch (error) {
      parts.logger?.warn({ error: (error as Error).message }, 'interaction listener failed');
    }
  };
  // Saving is incremental (docs/tenants.md, "Output and memory"): each step is saved once, as it
  // comes, and never copied; a step is not changed after it is added.
  let saving = Promise.resolve();
  const save = (work: () => Promise<void>) => {
    saving = saving.then(work).catch((error: unknown) => {
      parts.logger?.error({ error: (error as Error).message }, 'saving an interaction failed');
    });
  };
  // For the metrics and the console (docs/console.md): the interaction's status as it changes.
  const observe = () =>
    parts.controller.observers.emit({
      kind: 'interaction',
      at: Date.now(),
      interaction_id: interaction.id,
      environment_id: interaction.environment_id,
      agent: interaction.agent,
      status: interaction.status,
      tenant: prepared.caller?.tenant ?? null,
      created: interaction.created,
      ...interactionFacts(interaction),
    });
  const addStep = (step: Step) => {
    interaction.steps.push(step);
    interaction.updated = new Date().toISOString();
    const index = interaction.steps.length - 1;
    save(() => parts.store.appendStep(interaction.id, index, step));
    observe();
    emit({ event_type: 'step', index, step });
  };

  emit({ event_type: 'interaction.created', interaction: structuredClone(interaction) });
  observe();
  const text = userTextOf(request.input);
  if (text.length > 0) addStep({ type: 'user_input', content: text });

  const total: Usage = {
    total_input_tokens: 0,
    total_output_tokens: 0,
    total_thought_tokens: 0,
    total_tokens: 0,
  };

  // Controller hooks  see the interaction: its id and a context store of its own.
  const interactionStore = environment.store.createChild('interaction');
  const scope = {
    environmentId: environment.id,
    interactionId: interaction.id,
    store: interactionStore,
  };
  const runner = parts.controller.hookRunner;

  const approver = parts.approverEnabled
    ? new InteractionApprover(parts.approvals, parts.approvalTtlMs)
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
          ...(listener && options.liveOutput !== false ? liveOutputListeners(emit, call.args) : {}),
        });
        report = reportOf(outcome);
        originalArgs = outcome.original_args;
        pending = outcome.approval?.status === 'pending';
      } catch (error) {
        if (!(error instanceof UserError && error.code === 'invalid_tool_call')) throw error;
        report = refusedReport(call, error.message);
      }
    }
    parts.leases.touch(environment.id);
    const [callStep, resultStep] = stepsOf(report, originalArgs);
    addStep(callStep);
    if (pending) {
      // docs/contract.md §11: the call waits for its approver; the interaction ends `requires_action`.
      const approval = await parts.approvals.get(report.call_id);
      if (approval) throw new ApprovalPause(approval);
    }
    addStep(resultStep);
    return report;
  };

  const context: DriverContext = {
    agent: request.agent,
    input: request.input,
    history: prepared.history,
    tools: prepared.tools,
    ...(request.system_instruction === undefined
      ? {}
      : { systemInstruction: request.system_instruction }),
    callTool,
    emitModelOutput: (output) =>
      addStep({ type: 'model_output', content: [{ type: 'text', text: output }] }),
    maxSteps: parts.maxSteps,
    signal: options.cancel ? AbortSignal.any([parts.signal, options.cancel]) : parts.signal,
    addUsage: (usage) => {
      total.total_input_tokens += usage.input;
      total.total_output_tokens += usage.output;
      total.total_thought_tokens! += usage.thought ?? 0;
      total.total_tokens += usage.input + usage.output + (usage.thought ?? 0);
    },
  };
  const cancelled = () => options.cancel?.aborted === true;
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
        store: parts.approvals,
        approver: approver ?? new InteractionApprover(parts.approvals, parts.approvalTtlMs),
        runCall: (call, callId) => callTool(call, callId),
        addBlocked: (report) => stepsOf(report).forEach(addStep),
        record: (approval, reason) =>
          environment.recordApproval({
            call_id: approval.call_id,
            interaction_id: approval.interaction_id,
            status: approval.status as 'approved' | 'denied' | 'expired',
            reason,
            // Who answered (docs/dialects.md, "ask"); an expiry was no one's answer.
            ...(prepared.caller && approval.status !== 'expired'
              ? { decided_by: prepared.caller.tenant }
              : {}),
          }),
      });
      await markAnswered(parts.store, parts.approvals, prepared);
      // A model needs text to go on: a continuation of approvals alone ends with their calls
      // (docs/dialects.md, "ask"); the next text turn sees their results in the history.
      if (driver.executesInputCalls || text.length > 0) await driver.run(context);
      interaction.status = cancelled() ? 'cancelled' : 'completed';
    }
  } catch (error) {
    if (error instanceof ApprovalPause) {
      interaction.status = 'requires_action';
      interaction.pending_approvals = [shownApproval(error.approval)];
    } else if (cancelled()) {
      // docs/gemini-sdks.md, "Background and cancel": what ran is kept; the rest never runs.
      interaction.status = 'cancelled';
    } else {
      const failure = toHookboxError(error);
      interaction.status = 'failed';
      interaction.error = { code: failure.code, message: failure.message };
      parts.logger?.warn(
        { interaction: interaction.id, code: failure.code, error: failure.message },
        'interaction failed',
      );
    }
  } finally {
    if (runner) {
      const ended = await runner.onInteractionEnd(scope).catch((error: unknown) => {
        parts.logger?.error({ error: (error as Error).message }, 'interaction_end hooks failed');
        return undefined;
      });
      if (ended) environment.recordLifecycle(ended.records);
    }
    parts.leases.release(environment.id);
  }
  interaction.output_text = outputTextOf(interaction.steps);
  interaction.updated = new Date().toISOString();
  interaction.usage = total;
  const head = {
    usage: total,
    status: interaction.status,
    output_text: interaction.output_text,
    updated: interaction.updated,
    ...(interaction.error ? { error: interaction.error } : {}),
    ...(interaction.pending_approvals ? { pending_approvals: interaction.pending_approvals } : {}),
  };
  save(() => parts.store.update(interaction.id, head));
  await saving;
  prepared.release();
  parts.logger?.info(
    { interaction: interaction.id, status: interaction.status, steps: interaction.steps.length },
    'interaction ended',
  );
  observe();
  // No copy: the service is done with it, and an interaction of large outputs must not be held twice.
  emit({ event_type: 'interaction.complete', interaction });
  return interaction;
}
