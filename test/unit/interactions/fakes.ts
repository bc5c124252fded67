import type { PlacedSource } from '../../../src/config/sources.js';
import type { HooksConfig } from '../../../src/config/hooks-config.js';
import type { CallOutcome } from '../../../src/controller/environment.js';
import type { EnvironmentOptions } from '../../../src/controller/environment-options.js';
import type { NetworkState } from '../../../src/controller/network-change.js';
import { UserError } from '../../../src/errors/index.js';
import { ContextStore } from '../../../src/hooks/controller-hooks/context-store.js';
import type { HookRunner } from '../../../src/hooks/controller-hooks/runner.js';
import type { ModelDriver } from '../../../src/interactions/driver.js';
import {
  DEFAULT_AGENT_ROUTES,
  DriverRegistry,
  type DriverLoader,
} from '../../../src/interactions/drivers/index.js';
import { scriptedDriver } from '../../../src/interactions/drivers/scripted.js';
import type {
  ServiceController,
  ServiceEnvironment,
  ServiceSnapshotStore,
} from '../../../src/interactions/service-controller.js';
import type { HookRecord, LifecycleHookRecord } from '../../../src/record/types.js';
import type {
  AgentAnswerOf,
  AgentOp,
  AgentRequestOf,
} from '../../../src/sandbox/protocol/index.js';
import { checkAnswer } from '../../../src/sandbox/protocol/check.js';
import type { SnapshotRow } from '../../../src/snapshots/snapshot-rows.js';
import { DEFAULT_TEMPLATE } from '../../../src/templates/template-image.js';
import {
  DEFAULT_VOCABULARY,
  resolveToolCall,
  type VocabularyId,
} from '../../../src/tools/registry.js';
import type { ToolCall } from '../../../src/tools/types.js';
import { Observers } from '../../../src/record/observations.js';
import { MemoryAgentRows } from '../../../src/agents/agent-rows.js';
import { Agents } from '../../../src/agents/agents.js';

let counter = 0;

/**
 * An environment with no container: `rm -rf` is denied by a fake gate, anything else "runs". It
 * implements ServiceEnvironment, what the interaction service uses of an environment, so the
 * compiler holds it to Environment's types (docs/testing.md, "Fakes the compiler checks"). A real
 * environment over the in-memory agent: test/unit/fakes/memory-environment.ts.
 */
export class FakeEnvironment implements ServiceEnvironment {
  /** When it was made, as Environment.createdAt (ms since the epoch). */
  createdAt = Date.now();
  /** When a call last started, as Environment.lastUsedAt. */
  lastUsedAt = Date.now();
  readonly calls: ToolCall[] = [];
  readonly added: PlacedSource[] = [];
  /** Approvers' answers and lifecycle hook runs, as the audit log would hold them. */
  readonly approvals: Parameters<ServiceEnvironment['recordApproval']>[0][] = [];
  readonly lifecycle: LifecycleHookRecord[] = [];
  readonly hooksConfig: HooksConfig = {
    groups: [
      {
        name: 'fake-gate',
        enabled: true,
        dialect: 'gemini',
        pre_tool_execution: [],
        post_tool_execution: [],
      },
    ],
  };
  readonly store = new ContextStore();
  /** No network: the fake has no egress. */
  readonly allowlist = undefined;
  readonly network: NetworkState = 'disabled';
  /** Its container always runs; the agent answers what a cancel sends it. */
  readonly sandbox = {
    lostReason: async (): Promise<string | undefined> => undefined,
    request: async <Op extends AgentOp>(
      op: Op,
      _body: AgentRequestOf<Op>,
      _answerTimeoutMs: number,
    ): Promise<AgentAnswerOf<Op>> => {
      // Checked against the protocol as the real agent's answers are.
      if (op === 'kill_tool_processes') return checkAnswer(op, { killed: 0 });
      throw new UserError('unsupported', `the fake environment has no agent for ${op}`);
    },
  };

  constructor(
    readonly id: string,
    readonly vocabulary: VocabularyId,
    readonly sources: unknown[],
    readonly tenant: string | null = null,
    readonly pooled = false,
  ) {}

  async call(call: ToolCall): Promise<CallOutcome> {
    resolveToolCall(call, this.vocabulary);
    this.lastUsedAt = Date.now();
    this.calls.push(call);
    const callId = `call_${++counter}`;
    const text = JSON.stringify(call.args);
    const blocked = text.includes('rm -rf');
    const hook: HookRecord = {
      source: 'sandbox',
      environment_id: this.id,
      call_id: callId,
      group: 'fake-gate',
      event: 'pre_tool_execution',
      type: 'command',
      handler: 'gate',
      outcome: blocked ? 'deny' : 'allow',
      reason: blocked ? 'no rm -rf here' : null,
      exit_code: 0,
      duration_ms: 1.5,
    };
    const post: HookRecord = { ...hook, event: 'post_tool_execution', outcome: 'ok', reason: null };
    return {
      environment_id: this.id,
      call_id: callId,
      tool_call: call,
      blocked,
      reason: blocked ? 'no rm -rf here' : null,
      presented: blocked
        ? null
        : call.name === 'code_execution'
          ? { exit_code: 0, stdout: 'ran\n', stderr: '', timed_out: false, truncated: false }
          : { content: 'file text' },
      is_error: blocked,
      result: blocked
        ? null
        : call.name === 'code_execution'
          ? { exit_code: 0, stdout: 'ran\n', stderr: '', timed_out: false, truncated: false }
          : { content: 'file text' },
      hooks: blocked ? [hook] : [hook, post],
    };
  }

  recordApproval(entry: Parameters<ServiceEnvironment['recordApproval']>[0]): void {
    this.approvals.push(entry);
  }

  recordLifecycle(records: readonly LifecycleHookRecord[]): void {
    this.lifecycle.push(...records);
  }

  async addSources(sources: PlacedSource[]): Promise<void> {
    const agents = sources.filter((s) => s.area === 'agents');
    if (agents.some((s) => s.path === 'hooks.json' && s.content.includes('"http"')))
      throw new UserError('unsupported', 'http hooks');
    this.added.push(...sources);
  }

  /** The fake has no egress proxy: only "disabled" can be its network. */
  async replaceNetwork(raw: unknown, field = 'network'): Promise<NetworkState> {
    if (raw !== 'disabled')
      throw new UserError('unsupported', `${field}: the fake environment has no network`, {
        details: { field },
      });
    return this.network;
  }
}

/**
 * No snapshots: the fake engine has no volumes to copy. Its list is empty, so every snapshot id is
 * unknown.
 */
class NoSnapshots implements ServiceSnapshotStore<FakeEnvironment> {
  async take(environment: FakeEnvironment): Promise<SnapshotRow> {
    throw new UserError('unsupported', `${environment.id}: the fake engine takes no snapshots`);
  }

  async get(): Promise<SnapshotRow | undefined> {
    return undefined;
  }

  async list(): Promise<SnapshotRow[]> {
    return [];
  }

  async delete(row: SnapshotRow): Promise<void> {
    throw new UserError('not_found', `no snapshot ${JSON.stringify(row.id)}`);
  }
}

/** The one runtime the fake engine knows. */
const FAKE_RUNTIME = 'runc';

/**
 * A controller whose environments are {@link FakeEnvironment}s. It implements ServiceController,
 * what the interaction service uses of a controller, so the compiler holds it to Controller's types
 * (docs/testing.md, "Fakes the compiler checks"). A real Controller over the in-memory container
 * client: test/unit/fakes/memory-controller.ts.
 */
export class FakeController implements ServiceController<FakeEnvironment> {
  readonly environments = new Map<string, FakeEnvironment>();
  /** Stored agents (docs/agents.md), in memory like a stateless controller's. */
  readonly agents = new Agents(new MemoryAgentRows());
  created = 0;
  hookRunner: HookRunner | undefined;
  /** Where the service reports interactions (src/record/observations.ts). */
  readonly observers = new Observers();
  /** Stateless: approvals are the service's own, in memory. */
  readonly state = undefined;
  /** No warm pool. */
  readonly pools = new Map<string, { size: number }>();
  readonly snapshots = new NoSnapshots();
  /** Only the `default` template, as the controller names it. */
  readonly templates = {
    resolve: async (name: string | undefined, field = 'template'): Promise<string> => {
      if (name === undefined || name === DEFAULT_TEMPLATE) return 'hookbox-sandbox:fake';
      throw new UserError(
        'invalid_argument',
        `${field}: unknown template ${JSON.stringify(name)}`,
        {
          details: { field },
        },
      );
    },
  };

  async checkRuntime(runtime: string, field = 'sandbox.runtime'): Promise<void> {
    if (runtime !== FAKE_RUNTIME)
      throw new UserError(
        'invalid_argument',
        `${field}: unknown runtime ${JSON.stringify(runtime)}`,
        {
          details: { field },
        },
      );
  }

  async createEnvironment(options: EnvironmentOptions = {}): Promise<FakeEnvironment> {
    this.created += 1;
    const environment = new FakeEnvironment(
      `env_fake${String(++counter).padStart(16, '0')}`,
      options.vocabulary ?? DEFAULT_VOCABULARY,
      options.sources ?? [],
      options.tenant ?? null,
    );
    this.environments.set(environment.id, environment);
    return environment;
  }

  listEnvironments(): FakeEnvironment[] {
    return [...this.environments.values()];
  }

  async deleteEnvironment(id: string): Promise<void> {
    this.environments.delete(id);
  }

  /** A fork copies a workspace, which the fake engine does not have. */
  async forkEnvironment(id: string): Promise<FakeEnvironment[]> {
    throw new UserError('unsupported', `${id}: the fake engine makes no copies`);
  }

  /** No shared state: only its own environments are found. */
  async adoptFromState(id: string): Promise<FakeEnvironment | undefined> {
    return this.environments.get(id);
  }

  async close(): Promise<void> {
    this.environments.clear();
  }

  environment(id: string): FakeEnvironment {
    return this.environments.get(id)!;
  }
}

/** A registry with the scripted driver and a `fake` agent whose driver the test gives. */
export function registryWith(fake?: ModelDriver, env: Record<string, string> = {}): DriverRegistry {
  const loaders: Record<string, DriverLoader> = { scripted: async () => scriptedDriver };
  if (fake) loaders.fake = async () => fake;
  return new DriverRegistry({
    loaders,
    routes: [...DEFAULT_AGENT_ROUTES, { pattern: /^fake$/, driver: 'fake', description: 'fake' }],
    env,
  });
}
