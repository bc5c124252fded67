// Making an environment: checks first, a pooled or cold sandbox, then its state and hooks; on failure, clean-up then rethrow.
import { EMPTY_HOOKS_CONFIG, parseHooksConfig, type HooksConfig } from '../config/hooks-config.js';
import type { WorkspaceFill } from '../sandbox/sandbox-create.js';
import { recipeOf } from '../snapshots/recipe.js';
import { placeSources, type PlacedSource } from '../config/sources.js';
import type { Credentials } from '../credentials/credentials.js';
import {
  checkPlaceholdersBound,
  placeholdersOf,
  resolveAllowlist,
} from '../credentials/environment-credentials.js';
import { parseNetworkOptions, type Allowlist } from '../network/allowlist.js';
import type { EgressRecord } from '../record/egress-record.js';
import type { HookRunner } from '../hooks/controller-hooks/runner.js';
import type { Observers } from '../record/observations.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { checkRuntimeName } from '../sandbox/sandbox-options.js';
import type { ControllerStateStore } from '../state/store.js';
import { DEFAULT_TEMPLATE } from '../templates/template-image.js';
import type { Templates } from '../templates/templates.js';
import { DEFAULT_VOCABULARY, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';
import { hooksConfigOf, hooksJsonOf } from '../hooks/hooks-config-of.js';
import type { Environment } from './environment.js';
import { checkEnvironmentOptions } from './environment-options-schema.js';
import { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from './environment-options.js';
import { newEnvironmentId } from '../ids.js';
import { parseToolEnv } from '../tools/tool-env.js';
import type { WarmPool } from './warm-pool.js';

/** What making an environment needs of the controller. */
export interface EnvironmentCreation {
  templates: Templates;
  /** The warm pools, by template name. */
  pools: ReadonlyMap<string, WarmPool>;
  state: ControllerStateStore | undefined;
  hookRunner: HookRunner | undefined;
  observers: Observers;
  /** Stored credentials that `network.allowlist[].credential` and env placeholders name. */
  credentials: Credentials;
  makeSandbox(
    environmentId: string,
    sources: PlacedSource[],
    options?: EnvironmentOptions['sandbox'],
    network?: { allowlist: Allowlist; onRecord: (record: EgressRecord) => void },
    image?: string,
    fill?: WorkspaceFill,
  ): Promise<Sandbox>;
  /** Wraps the sandbox as a live environment of the controller (and lists it). */
  adopt(
    sandbox: Sandbox,
    gates: HooksConfig,
    vocabulary: VocabularyId,
    settings: ToolRunSettings,
    owner: { tenant: string | null; pooled?: boolean },
  ): Environment;
  /** Refuses, naming `field`, a runtime the engine does not know. */
  checkRuntime(runtime: string, field: string): Promise<void>;
  /** Unlists an environment whose making failed. */
  forget(environmentId: string): void;
}

/**
 * A new environment whose workspace and gates are copied from a snapshot or another environment
 * (src/snapshots/): no sources, never from the warm pool.
 */
export interface CopiedFrom {
  /** The hooks.json in force where it is copied from (its scripts come with the copy). */
  hooksJson: string | null;
  fill: WorkspaceFill;
}

/**
 * Makes an environment. Sources and hooks.json are validated before any container is made; a
 * failure after that removes what was made and reports the original error.
 */
export async function createEnvironment(
  host: EnvironmentCreation,
  options: EnvironmentOptions,
  copied?: CopiedFrom,
): Promise<Environment> {
  checkEnvironmentOptions(options);
  const startedAt = performance.now();
  if (options.sandbox?.runtime !== undefined) {
    checkRuntimeName(options.sandbox.runtime, 'sandbox.runtime');
    await host.checkRuntime(options.sandbox.runtime, 'sandbox.runtime');
  }
  const sources = placeSources(options.sources ?? []);
  const parsedAllowlist = parseNetworkOptions(options.network);
  const gates = copied
    ? copied.hooksJson === null
      ? EMPTY_HOOKS_CONFIG
      : parseHooksConfig(copied.hooksJson)
    : hooksConfigOf(sources, parsedAllowlist);
  const hooksJson = copied ? copied.hooksJson : hooksJsonOf(sources);
  const template = options.template ?? DEFAULT_TEMPLATE;
  const image = await host.templates.resolve(template);
  // Credential placeholders become tokens; the values stay with the proxy (docs/credentials.md).
  const { env, placeholders } =
    options.env === undefined
      ? { env: undefined, placeholders: [] }
      : placeholdersOf(parseToolEnv(options.env));
  checkPlaceholdersBound(placeholders, parsedAllowlist);
  const tenant = options.tenant ?? null;
  const resolveNetwork = (list: Allowlist, field = 'network.allowlist') =>
    resolveAllowlist(list, placeholders, host.credentials, tenant, field);
  const allowlist = parsedAllowlist && (await resolveNetwork(parsedAllowlist));
  // Egress records go to the environment's audit log once it exists (no traffic comes before).
  const early: EgressRecord[] = [];
  let recordEgress: (record: EgressRecord) => void = (record) => early.push(record);
  // A pooled environment has the default limits and no network; any other is made cold.
  const pooled =
    options.sandbox === undefined && !allowlist && options.usePool !== false && !copied
      ? host.pools.get(template)?.take()
      : undefined;
  let sandbox: Sandbox;
  if (pooled) {
    try {
      await pooled.injectSources(sources);
    } catch (error) {
      await pooled.destroy().catch(() => {});
      throw error;
    }
    sandbox = pooled;
  } else {
    sandbox = await host.makeSandbox(
      newEnvironmentId(),
      sources,
      options.sandbox,
      allowlist ? { allowlist, onRecord: (record) => recordEgress(record) } : undefined,
      image,
      copied?.fill,
    );
  }
  const environmentId = sandbox.environmentId;
  const settings = {
    timeoutMs: options.toolTimeoutMs ?? ENVIRONMENT_DEFAULTS.toolTimeoutMs,
    outputCapBytes: options.outputCapBytes ?? ENVIRONMENT_DEFAULTS.outputCapBytes,
    backgroundProcesses: options.backgroundProcesses ?? ENVIRONMENT_DEFAULTS.backgroundProcesses,
    ...(env ? { env } : {}),
  };
  const vocabulary = options.vocabulary ?? DEFAULT_VOCABULARY;
  // One creation time, in the state file and in memory, so the age a re-attached environment
  // shows after a restart is the one shown before it (docs/console.md, "Pages").
  const createdAt = Date.now();
  try {
    // A networked environment is not kept across restarts: its secrets live only in this process.
    if (!allowlist)
      await host.state?.saveEnvironment({
        id: environmentId,
        container_id: sandbox.containerId,
        created: new Date(createdAt).toISOString(),
        settings: { ...settings, vocabulary, template, sandbox: options.sandbox ?? null },
        hooks_json: hooksJson,
        last_used: new Date().toISOString(),
        tenant: options.tenant ?? null,
      });
    const environment = host.adopt(sandbox, gates, vocabulary, settings, {
      tenant: options.tenant ?? null,
      pooled: pooled !== undefined,
    });
    environment.createdAt = createdAt;
    if (allowlist) environment.resolveNetwork = resolveNetwork;
    // As given (credential references, not their values): a copy resolves them again.
    environment.recipe = recipeOf({
      vocabulary,
      template,
      settings,
      env: options.env,
      sandbox: options.sandbox ?? null,
      hooksJson,
    });
    if (options.network !== undefined) environment.networkOptions = options.network;
    environment.recordEvent('created');
    recordEgress = (record) => environment.recordEgress(record);
    early.forEach(recordEgress);
    if (host.hookRunner) {
      const started = await host.hookRunner.onEnvironmentStart({
        environmentId,
        store: environment.store,
      });
      environment.recordLifecycle(started.records);
    }
    host.observers.emit({
      kind: 'environment_created',
      at: Date.now(),
      environment_id: environmentId,
      duration_ms: performance.now() - startedAt,
      source: pooled ? 'pool' : 'cold',
    });
    return environment;
  } catch (error) {
    // Anything failing after the container exists (the audit log's folder, a lifecycle hook):
    // remove what was made, then report the original error.
    host.forget(environmentId);
    await host.state?.deleteEnvironment(environmentId).catch(() => {});
    await sandbox.destroy().catch(() => {});
    throw error;
  }
}
