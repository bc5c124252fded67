import type { PlacedSource } from '../../../src/config/sources.js';
import type { Controller } from '../../../src/controller/controller.js';
import type { CallOutcome, Environment } from '../../../src/controller/environment.js';
import type { EnvironmentOptions } from '../../../src/controller/environment-options.js';
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
import type { HookRecord } from '../../../src/record/types.js';
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
 * An environment with no container: `rm -rf` is denied by a fake gate, anything else "runs". The
 * members the interaction service uses are held to Environment's own types (a real environment
 * over the in-memory agent: test/unit/fakes/memory-environment.ts).
 */
export class FakeEnvironment implements Pick<
  Environment,
  | 'createdAt'
  | 'store'
  | 'id'
  | 'vocabulary'
  | 'tenant'
  | 'pooled'
  | 'call'
  | 'recordLifecycle'
  | 'addSources'
> {
  /** When it was made, as Environment.createdAt (ms since the epoch). */
  createdAt = Date.now();
  readonly calls: ToolCall[] = [];
  readonly added: PlacedSource[] = [];
  hooksConfig = { groups: [{ name: 'fake-gate' }] };
  readonly store = new ContextStore();
  /** Its container always runs. */
  readonly sandbox = { lostReason: async (): Promise<string | undefined> => undefined };

  constructor(
    readonly id: string,
    readonly vocabulary: VocabularyId,
    readonly sources: unknown[],
    readonly tenant: string | null = null,
    readonly pooled = false,
  ) {}

  async call(call: ToolCall): Promise<CallOutcome> {
    resolveToolCall(call, this.vocabulary);
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

  recordLifecycle(): void {}

  async addSources(sources: PlacedSource[]): Promise<void> {
    const agents = sources.filter((s) => s.area === 'agents');
    if (agents.some((s) => s.path === 'hooks.json' && s.content.includes('"http"')))
      throw new UserError('unsupported', 'http hooks');
    this.added.push(...sources);
  }
}

/**
 * A controller whose environments are {@link FakeEnvironment}s; what it shares with Controller is
 * held to Controller's types. A real Controller over the in-memory container client:
 * test/unit/fakes/memory-controller.ts.
 */
export class FakeController implements Pick<
  Controller,
  'agents' | 'hookRunner' | 'observers' | 'deleteEnvironment' | 'close'
> {
  readonly environments = new Map<string, FakeEnvironment>();
  /** Stored agents (docs/agents.md), in memory like a stateless controller's. */
  readonly agents = new Agents(new MemoryAgentRows());
  created = 0;
  hookRunner: HookRunner | undefined;
  /** Where the service reports interactions (src/record/observations.ts). */
  readonly observers = new Observers();

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

  async close(): Promise<void> {
    this.environments.clear();
  }

  get asController(): Controller {
    return this as unknown as Controller;
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
