/** Preparing an interaction: its request checked, its environment found or made, its record stored. */
import { placeSources, type PlacedSource } from '../config/sources.js';
import { parseToolEnv } from '../tools/tool-env.js';
import { parseNetworkOptions } from '../network/allowlist.js';
import type { Logger } from '../record/logger.js';
import type { Caller } from '../tenants/tenant.js';
import { checkApprovalItems } from './approval-flow.js';
import type { ApprovalStore } from '../state/approvals.js';
import type { DriverRegistry } from './drivers/index.js';
import type { PreparedInteraction } from './prepared-interaction.js';
import type { ParsedInteractionRequest } from './request.js';
import {
  atSources,
  checkAgentInput,
  checkGates,
  enabledToolsOf,
  modelToolsOf,
  refuseForExisting,
  targetOf,
} from './request-checks.js';
import type { Interaction } from './schema.js';
import type { ServiceEnvironment } from './service-controller.js';
import type { ServiceEnvironments } from './service-environments.js';
import type { ServiceSnapshots } from './service-snapshots.js';
import { checkSnapshotTarget } from '../snapshots/snapshot-checks.js';
import { historyOf } from './steps.js';
import { newInteractionId } from '../ids.js';
import { chainOf, interactionAt } from './stored-interactions.js';
import type { InteractionStore } from './store.js';

/** What preparing an interaction needs of the service; `E`: its environments' type. */
export interface PrepareParts<E extends ServiceEnvironment> {
  readonly drivers: DriverRegistry;
  readonly approvals: ApprovalStore;
  readonly store: InteractionStore;
  readonly logger: Logger | undefined;
  readonly environments: ServiceEnvironments<E>;
  readonly snapshots: ServiceSnapshots<E>;
}

/**
 * Checks a parsed request and sets up its environment: every check that can be made is made
 * before an environment is made or changed, so a bad request leaves nothing behind.
 */
export async function prepareInteraction<E extends ServiceEnvironment>(
  parts: PrepareParts<E>,
  request: ParsedInteractionRequest,
  caller: Caller | undefined,
  release: () => void,
): Promise<PreparedInteraction<E>> {
  const { environments, store } = parts;
  const resolved = await parts.drivers.resolve(request.agent);
  const { driver } = resolved;
  checkAgentInput(driver, request);

  const previous = request.previous_interaction_id
    ? await interactionAt(store, request.previous_interaction_id, 'previous_interaction_id', caller)
    : undefined;
  const answered = await checkApprovalItems(request.input, previous, parts.approvals);
  const target = targetOf(request, previous);
  const config = target.config;
  const prefix = 'environment';
  // Checked before anything is looked up or built (a template's image may need a build).
  if (config?.snapshot_id !== undefined) checkSnapshotTarget(config, prefix);
  // A network (docs/contract.md §7) is chosen when the environment is made; an existing one keeps its own.
  const network =
    config?.network !== undefined &&
    config.network !== 'disabled' &&
    config.network.allowlist.length > 0
      ? config.network
      : undefined;
  if (config?.sandbox !== undefined && target.kind === 'existing')
    refuseForExisting(prefix, 'sandbox', 'sandbox');
  if (network && target.kind === 'existing') refuseForExisting(prefix, 'network', 'network');
  // A template (docs/templates.md) is chosen when the environment is made, like its network.
  const template = config?.template;
  if (template !== undefined && target.kind === 'existing')
    refuseForExisting(prefix, 'template', 'template');
  if (template !== undefined)
    await environments.controller.templates.resolve(template, `${prefix}.template`);
  // The engine must know the runtime: its own refusal would come halfway through making one.
  if (config?.sandbox?.runtime !== undefined && target.kind !== 'existing')
    await environments.controller.checkRuntime(config.sandbox.runtime, `${prefix}.sandbox.runtime`);
  // Shared state: the environment may be another replica's; take it on (docs/kubernetes.md).
  if (target.kind === 'existing') await environments.adoptEnvironment(target.id);
  if (config?.env !== undefined && target.kind === 'existing')
    refuseForExisting(prefix, 'env', 'variables');
  const env = config?.env === undefined ? undefined : parseToolEnv(config.env, `${prefix}.env`);
  const allowlist =
    target.kind === 'existing'
      ? environments.environmentAt(target.id, target.field, caller).allowlist
      : network && parseNetworkOptions(network, `${prefix}.network`);
  const sources = config?.sources ?? [];
  let placed: PlacedSource[];
  try {
    placed = placeSources(sources);
  } catch (error) {
    throw atSources(error, prefix);
  }
  checkGates(placed, sources, prefix, allowlist);
  const history = historyOf(previous ? await chainOf(store, previous) : [], request.input);

  // Checks done that need no environment; from here on things are made or changed.
  let environment: E | undefined;
  if (target.kind === 'existing') {
    environment = environments.environmentAt(target.id, target.field, caller);
    environments.leases.acquire(environment.id);
  } else if (config?.snapshot_id !== undefined) {
    // Made first: its vocabulary is the snapshot's (docs/environments.md, "Snapshots and forks").
    environment = await parts.snapshots.restoreFor(
      config.snapshot_id,
      `${prefix}.snapshot_id`,
      caller,
    );
    environments.leases.acquire(environment.id);
  }
  try {
    const vocabulary =
      environment?.vocabulary ??
      driver.vocabularyFor?.(request.input, resolved.vocabulary) ??
      resolved.vocabulary;
    const enabledTools = enabledToolsOf(request.tools, vocabulary);
    driver.checkInput?.(request.input, { vocabulary, enabledTools });
    if (environment) {
      if (placed.length > 0 && config?.snapshot_id === undefined)
        await environment.addSources(placed);
    } else {
      environment = await environments.createFor(caller, {
        sources,
        vocabulary,
        ...(network ? { network } : {}),
        ...(template !== undefined ? { template } : {}),
        ...(config?.sandbox?.runtime ? { sandbox: { runtime: config.sandbox.runtime } } : {}),
        ...(env ? { env } : {}),
      });
      environments.leases.acquire(environment.id);
    }
    const now = new Date().toISOString();
    const interaction: Interaction = {
      id: newInteractionId(),
      object: 'interaction',
      status: 'in_progress',
      agent: request.agent,
      environment_id: environment.id,
      ...(previous ? { previous_interaction_id: previous.id } : {}),
      ...(request.labels ? { labels: request.labels } : {}),
      steps: [],
      output_text: '',
      created: now,
      updated: now,
    };
    await store.put(interaction, caller?.tenant ?? null);
    parts.logger?.info(
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
    if (environment) environments.leases.release(environment.id);
    // One made from a snapshot for this request goes with it: a bad request leaves nothing behind.
    if (environment && config?.snapshot_id !== undefined)
      await environments.deleteEnvironment(environment.id, caller).catch(() => {});
    throw error;
  }
}
