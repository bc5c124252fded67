import { EMPTY_HOOKS_CONFIG, parseHooksConfig, type HooksConfig } from '../config/hooks-config.js';
import type { PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import type { HandlerRun } from '../hooks/decision.js';
import {
  runPostHooks,
  runPreHooks,
  type HandlerExecutor,
  type HookCallContext,
} from '../hooks/hook-engine.js';
import { AuditLog, readAuditLog, type AuditEntry } from '../record/audit-log.js';
import type { Logger } from '../record/logger.js';
import type { HookRecord } from '../record/types.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { SANDBOX_PATHS } from '../sandbox/sandbox-options.js';
import { resolveToolCall, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import type { ToolCall, ToolResult } from '../tools/types.js';
import { ENVIRONMENT_DEFAULTS } from './environment-options.js';
import { newCallId } from './ids.js';
import { SerialQueue } from './serial-queue.js';

/** What one tool call came to (the `--json` shape of SPEC §10, plus the records in full). */
export interface CallOutcome {
  environment_id: string;
  call_id: string;
  tool_call: ToolCall;
  /** True when a pre hook denied the call: the tool did not run. */
  blocked: boolean;
  /** The deny reason; the model sees it as the call's error result. */
  reason: string | null;
  /** The tool's result, or null when blocked. */
  result: ToolResult | null;
  /** The post payload's `error` text, when the tool failed. */
  error?: string;
  hooks: HookRecord[];
}

/** Reads the gates from the `.agents/hooks.json` source, if any (SPEC §4: none means no hooks). */
export function hooksConfigOf(sources: PlacedSource[]): HooksConfig {
  const file = sources.find((source) => source.area === 'agents' && source.path === 'hooks.json');
  if (!file) return EMPTY_HOOKS_CONFIG;
  const config = parseHooksConfig(file.content);
  for (const group of config.groups) {
    for (const event of ['pre_tool_execution', 'post_tool_execution'] as const) {
      group[event].forEach((rule) =>
        rule.handlers.forEach((handler, index) => {
          if (handler.type === 'http') {
            throw new UserError(
              'unsupported',
              `.agents/hooks.json: ${rule.path}.hooks[${index}]: "http" handlers need a network.allowlist that names ${new URL(handler.url).hostname} and the egress proxy (SPEC §7), which this hookbox does not have yet; refused rather than silently never run`,
              { details: { field: `${rule.path}.hooks[${index}].type` } },
            );
          }
        }),
      );
    }
  }
  return config;
}

/**
 * One live environment: its sandbox, its gates, its settings and its audit log. Calls run one at a
 * time, through the gates, and every hook run is recorded.
 */
export class Environment {
  private gates: HooksConfig;
  private readonly queue = new SerialQueue();
  private readonly executor: HandlerExecutor;
  private deleted = false;

  constructor(
    readonly sandbox: Sandbox,
    gates: HooksConfig,
    readonly vocabulary: VocabularyId,
    private readonly settings: ToolRunSettings,
    private readonly audit: AuditLog,
    private readonly logger: Logger,
  ) {
    this.gates = gates;
    this.executor = {
      run: async (handler, stdin, env) => {
        if (handler.type !== 'command') throw new Error('http handlers are refused at creation');
        return this.sandbox.request<HandlerRun & { duration_ms: number }>(
          'run_hook',
          {
            command: handler.command,
            stdin,
            env,
            timeout_ms: handler.timeoutSeconds * 1000,
            output_cap_bytes: ENVIRONMENT_DEFAULTS.hookOutputCapBytes,
          },
          handler.timeoutSeconds * 1000 + 15_000,
        );
      },
    };
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

  /**
   * Runs one tool call through the gates (SPEC §5, §6). Bad input (unknown tool, missing or mistyped
   * arguments) is refused before any hook runs.
   */
  async call(toolCall: ToolCall): Promise<CallOutcome> {
    if (this.deleted)
      throw new UserError('not_found', `environment ${this.id} was deleted`, {
        details: { field: 'environment_id' },
      });
    const { tool, args } = resolveToolCall(toolCall, this.vocabulary);
    const verbatim: ToolCall = { name: toolCall.name, args: toolCall.args ?? {} };
    return this.queue.run(async () => {
      const context: HookCallContext = {
        environmentId: this.id,
        callId: newCallId(),
        toolName: tool.name,
        stateDir: SANDBOX_PATHS.stateDir,
      };
      const record = (hook: HookRecord) => {
        this.audit.append({ kind: 'hook', at: new Date().toISOString(), ...hook });
        this.logger.info(hook, 'hook run');
      };
      const gates = this.gates;
      const payload = { tool_call: verbatim, environment_id: this.id };
      const pre = await runPreHooks(gates, this.executor, payload, context, record);
      const outcome: CallOutcome = {
        environment_id: this.id,
        call_id: context.callId,
        tool_call: verbatim,
        blocked: pre.blocked,
        reason: pre.reason,
        result: null,
        hooks: pre.records,
      };
      if (!pre.blocked) {
        const request = tool.request(args, this.settings);
        const answer = await this.sandbox.request<Record<string, unknown>>(
          request.op,
          request.body,
          request.answerTimeoutMs,
        );
        outcome.result = tool.result(answer);
        const error = tool.errorOf(outcome.result);
        if (error !== undefined) outcome.error = error;
        const postPayload = {
          ...payload,
          ...(error === undefined ? {} : { error }),
          result: outcome.result,
        };
        outcome.hooks = [
          ...pre.records,
          ...(await runPostHooks(gates, this.executor, postPayload, context, record)),
        ];
      }
      this.audit.append({
        kind: 'tool_call',
        at: new Date().toISOString(),
        environment_id: this.id,
        call_id: context.callId,
        tool_call: verbatim,
        blocked: outcome.blocked,
        reason: outcome.reason,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      });
      return outcome;
    });
  }

  /**
   * Adds sources to this environment between calls (SPEC §3, §9): workspace files are added; if any
   * `.agents/` source is sent, the whole of /.agents is replaced. The new hooks.json is validated
   * first; an invalid one is refused with the old gates left in place. No call sees a mix.
   */
  async addSources(sources: PlacedSource[]): Promise<void> {
    const agents = sources.filter((source) => source.area === 'agents');
    const newGates = agents.length > 0 ? hooksConfigOf(agents) : undefined;
    await this.queue.run(async () => {
      if (sources.some((source) => source.area === 'workspace'))
        await this.sandbox.addWorkspaceSources(sources);
      if (newGates) {
        await this.sandbox.replaceAgents(agents);
        this.gates = newGates;
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

  /** Everything recorded for this environment so far, from its audit log. */
  records(): AuditEntry[] {
    return readAuditLog(this.audit.path);
  }

  /** Removes the container and volumes. The audit log stays. */
  async delete(): Promise<void> {
    if (this.deleted) return;
    this.deleted = true;
    await this.queue.run(async () => {
      await this.sandbox.destroy();
      this.audit.append({
        kind: 'environment',
        at: new Date().toISOString(),
        environment_id: this.id,
        event: 'deleted',
      });
      this.audit.close();
    });
  }
}
