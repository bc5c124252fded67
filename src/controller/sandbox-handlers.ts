import type { CommandHandler, HooksConfig } from '../config/hooks-config.js';
import { SystemError } from '../errors/index.js';
import type { HandlerRun } from '../hooks/decision.js';
import type { HandlerExecutor, HookCallContext } from '../hooks/hook-engine.js';
import { handlerKeys, prestartRequests } from '../hooks/prestart-plan.js';
import type { EnvironmentEgress } from '../network/environment-egress.js';
import type { Logger } from '../record/logger.js';
import type { AgentRequestOf, CodeLanguage } from '../sandbox/protocol/index.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { SANDBOX_PATHS } from '../sandbox/sandbox-options.js';
import { toolsOf, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import { ENVIRONMENT_DEFAULTS } from './environment-options.js';

/** How an environment runs its command handlers (docs/gates.md, "Prestart and workers"). */
export interface HookProcessSettings {
  /**
   * Keep each command handler's next process started ahead, unless the handler says
   * `"prestart": false`. @default true
   */
  prestart: boolean;
}

/**
 * Runs an environment's sandbox handlers through its agent, and keeps the agent's processes for the
 * next call ready: the hooks' (prestarted or workers) and tool code's interpreter (docs/gates.md,
 * "Prestart and workers").
 */
export class SandboxHandlers implements HandlerExecutor {
  /** The agent's names for the command handlers of the gates in force. */
  private keys: Map<CommandHandler, string>;
  /** Counts gate replacements: nothing prestarted for older gates may answer. */
  private generation = 1;
  private lastToolName: string | undefined;
  /** The language of the last code_execution call: its interpreter is started ahead. */
  private lastCodeLanguage: CodeLanguage = 'bash';
  /** The request for the next call's processes, while in flight (awaited before removal). */
  private prestarting: Promise<void> = Promise.resolve();
  /** Resolves once the last request asked for by prestartNext is written (or dropped). */
  private prestartWritten: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly sandbox: Sandbox,
    private gates: HooksConfig,
    private readonly vocabulary: VocabularyId,
    private readonly settings: ToolRunSettings,
    private readonly logger: Logger,
    private readonly egress: () => EnvironmentEgress | undefined,
    private readonly processes: HookProcessSettings = { prestart: true },
  ) {
    this.keys = handlerKeys(gates);
  }

  async run(
    handler: Parameters<HandlerExecutor['run']>[0],
    stdin: string,
    env: Record<string, string>,
    call: HookCallContext,
  ): Promise<HandlerRun & { duration_ms: number }> {
    if (handler.type === 'http') {
      // Checked at creation; an environment without egress never gets here.
      const egress = this.egress();
      if (!egress) throw new Error('http handlers need an environment with a network');
      return this.sandbox.request(
        'http_hook',
        {
          url: handler.url,
          headers: handler.headers,
          // Base64: JSON inside a JSON string would double its escaping on the agent's stream.
          body_b64: Buffer.from(stdin).toString('base64'),
          proxy: egress.proxyUrl,
          token: egress.hookToken,
          timeout_ms: handler.timeoutSeconds * 1000,
          output_cap_bytes: ENVIRONMENT_DEFAULTS.hookOutputCapBytes,
        },
        handler.timeoutSeconds * 1000 + 15_000,
      );
    }
    const key = this.keys.get(handler);
    // The call's code goes with its one pre hook, and with nothing else (call-context.ts).
    const ahead = call.runAhead?.handler === handler ? call.runAhead : undefined;
    call.runAhead = undefined;
    const {
      then,
      then_error: failed,
      ...run
    } = await this.sandbox.request(
      'run_hook',
      {
        command: handler.command,
        // Base64: JSON inside a JSON string would double its escaping on the agent's stream.
        stdin_b64: Buffer.from(stdin).toString('base64'),
        env,
        timeout_ms: handler.timeoutSeconds * 1000,
        output_cap_bytes: ENVIRONMENT_DEFAULTS.hookOutputCapBytes,
        // docs/gates.md, "Running workspace code from a hook": never prestarted, never a worker.
        ...(handler.runAs === 'tool' ? { run_as: 'tool' as const } : {}),
        ...(key === undefined || handler.runAs === 'tool'
          ? {}
          : {
              key,
              generation: this.generation,
              prestart: this.processes.prestart ? (handler.prestart ?? 'auto') : false,
              worker: handler.worker,
            }),
        ...(ahead ? { then_run_code: ahead.body } : {}),
      },
      // A worker that hangs is followed by a spawn with the same timeout.
      handler.timeoutSeconds * 1000 * (handler.worker ? 2 : 1) +
        15_000 +
        (ahead?.answerTimeoutMs ?? 0),
    );
    if (failed !== undefined)
      call.ranAhead = new SystemError('sandbox_failed', `sandbox agent: ${failed}`, {
        details: { operation: 'run_code' },
      });
    else if (then !== undefined) call.ranAhead = then;
    return run;
  }

  /** What a call ran, for the guesses of the next one. */
  noteTool(toolName: string, codeLanguage?: string): void {
    this.lastToolName = toolName;
    if (codeLanguage === 'bash' || codeLanguage === 'python' || codeLanguage === 'sh')
      this.lastCodeLanguage = codeLanguage;
  }

  /** Before the gates are replaced: nothing started for the old ones may answer from now on. */
  replacingGates(): void {
    this.generation += 1;
  }

  /** The gates were replaced; `nextCallId` as for {@link prestartNext}. */
  gatesReplaced(gates: HooksConfig, nextCallId: string): void {
    this.gates = gates;
    this.keys = handlerKeys(gates);
    this.prestartNext(nextCallId);
  }

  /**
   * Asks the agent to have the next call's processes ready. Not awaited: their start-up runs
   * between calls, and a call that comes first simply finds nothing ready (docs/gates.md).
   * What to ask for is fixed now; the request is written on the next turn of the event loop, after
   * the finished call's caller has its outcome (docs/gates.md, "Costs and bounds"). Whatever talks
   * to the agent next in this environment waits for that write (`prestartSent`), so the request
   * still comes before the next call's. `nextCallId` is the id the next call will get: its
   * prestarted hooks are given it.
   */
  prestartNext(nextCallId: string): void {
    if (this.closed) return;
    const handlers = prestartRequests(this.gates, this.keys, {
      environmentId: this.sandbox.environmentId,
      stateDir: SANDBOX_PATHS.stateDir,
      nextCallId,
      lastToolName: this.lastToolName,
      toolNames: toolsOf(this.vocabulary).map((tool) => tool.name),
      prestart: this.processes.prestart,
    });
    // Tool code's interpreter only where no tool process outlives its call: nothing can then reach
    // the waiting one (docs/gates.md, "Prestart and workers").
    // An environment with variables of its own spawns its code: the waiting interpreter would not
    // have them (docs/environments.md, "Environment variables").
    const hasEnv = Object.keys(this.settings.env ?? {}).length > 0;
    const codeLanguage =
      this.processes.prestart && !this.settings.backgroundProcesses && !hasEnv
        ? this.lastCodeLanguage
        : null;
    if (handlers.length === 0 && this.generation === 1 && codeLanguage === null) return;
    const body = { generation: this.generation, handlers, code_language: codeLanguage };
    // setImmediate runs its callbacks in order: requests asked for one after another are written
    // so. `sendPrestart` cannot throw: the request is async, and its failure is logged there.
    this.prestartWritten = new Promise<void>((written) => {
      setImmediate(() => {
        if (!this.closed) this.sendPrestart(body);
        written();
      });
    });
  }

  /** Resolves once the request for the next call's processes is on its way to the agent. */
  prestartSent(): Promise<void> {
    return this.prestartWritten;
  }

  private sendPrestart(body: AgentRequestOf<'prestart_hooks'>): void {
    this.prestarting = this.sandbox.request('prestart_hooks', body, 30_000).then(
      () => {},
      (error: Error) => {
        if (this.closed) return;
        this.logger.warn(
          { environmentId: this.sandbox.environmentId, error: error.message },
          'prestarting hook processes failed; hooks are spawned per call',
        );
      },
    );
  }

  /** Resolves once the agent has answered the latest request for the next call's processes
   * (started, or failed and logged). */
  async prestartAnswered(): Promise<void> {
    await this.prestartWritten;
    await this.prestarting;
  }

  /** No more requests; resolves once the one in flight is answered (a removal mid-request would
   * read as a lost agent, and cost a Docker inspect to explain). */
  async close(): Promise<void> {
    this.closed = true;
    await this.prestartAnswered();
  }
}
