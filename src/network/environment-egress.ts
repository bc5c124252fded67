import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SystemError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import type { Logger } from '../record/logger.js';
import type { ContainerRuntime } from '../sandbox/container-runtime.js';
import type { NetworkStore, NetworkSummary } from '../sandbox/network-store.js';
import { ownershipLabels } from '../sandbox/labels.js';
import type { ControllerIdentity, SandboxNetwork } from '../sandbox/sandbox.js';
import { addressInCidr, localInterfaceAddresses } from './addresses.js';
import type { Allowlist } from './allowlist.js';
import { EgressProxy, type EgressTesting, type Resolver } from './egress-proxy.js';
import type { EgressRecord } from '../record/egress-record.js';
import { socketRootOf } from './socket-folders.js';

/** How the controller runs egress proxies (ControllerOptions `egress`). */
export interface EgressSettings {
  /** PEM certificates trusted for the upstream TLS of `http` hooks, beside the system's CAs. */
  caCerts?: string[];
  /**
   * Folder for the per-environment proxy sockets. The Docker engine bind-mounts it into the relay
   * container, so it must be the same path on the engine's host. @default `<hookbox home>/egress`
   */
  socketDir?: string;
  /** **Test configuration only**: name overrides and trusted test upstreams (see EgressTesting). */
  testing?: EgressTesting;
  /** Resolver for names (default: `dns.lookup`, all addresses). */
  resolve?: Resolver;
  /** @default 10000 */
  connectTimeoutMs?: number;
  /** @default 300000 */
  idleTimeoutMs?: number;
}

/** The relay's port on the internal network: tool code's HTTP_PROXY is `http://<relay>:3128`. */
export const RELAY_PORT = 3128;
const RELAY_SOCKET_DIR = '/run/hookbox-egress';
const RELAY_READY_TIMEOUT_MS = 30_000;
/** `sun_path` holds 108 bytes on Linux; keep clear of it. */
const MAX_SOCKET_PATH = 100;

/** Options of the internal network: no route out, and no host address on its bridge. */
export const INTERNAL_NETWORK_OPTIONS = {
  // Without it the bridge holds the gateway address and every host service listening on 0.0.0.0
  // is one hop away from the sandbox (measured on Docker 20.10: an internal network's container
  // connects to the host's docker0 and eth0 addresses). With it the host has no address there.
  'com.docker.network.bridge.inhibit_ipv4': 'true',
} as const;

export function networkName(environmentId: string): string {
  return `hookbox-${environmentId}`;
}

export function relayName(environmentId: string): string {
  return `hookbox-${environmentId}-egress`;
}

let relaySource: string | undefined;
function relayCode(): string {
  relaySource ??= readFileSync(
    join(packageRoot(), 'sandbox-image', 'agent', 'egress_relay.py'),
    'utf8',
  );
  return relaySource;
}

/** Waits for the relay's "ready" line; its "error: …" line (or its exit) is the failure. */
async function relayReady(client: ContainerRuntime, containerId: string): Promise<void> {
  const stdio = await client.attach(containerId);
  try {
    await client.startContainer(containerId);
    const lines = createInterface({ input: stdio.stdout, crlfDelay: Infinity });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new SystemError('sandbox_failed', 'the egress relay did not start in time')),
        RELAY_READY_TIMEOUT_MS,
      );
      lines.on('line', (line) => {
        if (line.startsWith('ready')) {
          clearTimeout(timer);
          resolve();
        } else if (line.startsWith('error')) {
          clearTimeout(timer);
          reject(new SystemError('sandbox_failed', `the egress relay failed: ${line}`));
        }
      });
      lines.on('close', () => {
        clearTimeout(timer);
        reject(new SystemError('sandbox_failed', 'the egress relay exited before it was ready'));
      });
    });
  } finally {
    stdio.close();
  }
}

/**
 * An environment's way out (docs/contract.md §7): its internal Docker network (no route out, no host address on
 * the bridge), a relay container that is the network's only other member, and the egress proxy in
 * the controller, on a Unix socket that the relay reaches through a bind mount.
 *
 * ```
 * sandbox ──tcp──▶ relay:3128 ──unix socket──▶ EgressProxy (controller) ──▶ allowlisted upstream
 * ```
 *
 * Made before the sandbox (whose container joins {@link networkName}); once handed to
 * `Sandbox.create`, the sandbox owns it and {@link destroy}s it with itself.
 */
export class EnvironmentEgress implements SandboxNetwork {
  private constructor(
    readonly environmentId: string,
    readonly networkName: string,
    /** The relay's address on the internal network. */
    readonly relayAddress: string,
    readonly proxy: EgressProxy,
    /** Marks the sandbox agent's hook requests; held by the controller and the agent's memory. */
    readonly hookToken: string,
    private currentAllowlist: Allowlist,
    private readonly cleanup: () => Promise<void>,
  ) {}

  /** What tool code's HTTP_PROXY and HTTPS_PROXY say. */
  get proxyUrl(): string {
    return `http://${this.relayAddress}:${RELAY_PORT}`;
  }

  /** The sandbox container's environment: the proxy's address, nothing secret. */
  get env(): Record<string, string> {
    return { HOOKBOX_EGRESS_PROXY: this.proxyUrl };
  }

  get allowlist(): Allowlist {
    return this.currentAllowlist;
  }

  /** Replaces the rules (and secrets) for new connections. */
  setAllowlist(allowlist: Allowlist): void {
    this.currentAllowlist = allowlist;
    this.proxy.setAllowlist(allowlist);
  }

  /**
   * Makes the proxy, the network and the relay; on any failure removes what was made and rethrows.
   */
  static async create(params: {
    client: ContainerRuntime;
    /** The backend's networks: the environment's internal network and the relay's address. */
    networks: NetworkStore;
    logger: Logger;
    controller: ControllerIdentity;
    environmentId: string;
    /** The sandbox image: the relay runs its python3 as nobody. */
    image: string;
    allowlist: Allowlist;
    home: string;
    settings?: EgressSettings;
    onRecord: (record: EgressRecord) => void;
  }): Promise<EnvironmentEgress> {
    const { client, networks, logger, controller, environmentId } = params;
    const settings = params.settings ?? {};
    const socketRoot = socketRootOf(params.home, settings.socketDir);
    const folder = join(socketRoot, environmentId);
    const socketPath = join(folder, 'proxy.sock');
    if (socketPath.length > MAX_SOCKET_PATH) {
      throw new SystemError(
        'sandbox_failed',
        `the egress proxy socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes; set a shorter egress.socketDir or HOOKBOX_HOME`,
      );
    }
    const made: { proxy?: EgressProxy; folder?: boolean; network?: string; relay?: string } = {};
    const cleanup = async () => {
      if (made.relay) await client.removeContainer(made.relay).catch(() => {});
      if (made.network) await networks.removeNetwork(made.network).catch(() => {});
      await made.proxy?.close().catch(() => {});
      if (made.folder) rmSync(folder, { recursive: true, force: true });
    };
    try {
      // Only the controller's user reaches the sockets on the host; the relay sees its own folder.
      mkdirSync(socketRoot, { recursive: true, mode: 0o700 });
      chmodSync(socketRoot, 0o700);
      mkdirSync(folder, { recursive: true, mode: 0o755 });
      made.folder = true;
      chmodSync(folder, 0o755);

      // The engine's own networks are refused too, whatever their ranges.
      const engineNetworks = await networks.listNetworks([]);
      const blockedNetworks = engineNetworks.flatMap((network) =>
        network.subnets.map((cidr) => ({
          cidr,
          rule: 'docker-network' as const,
          what: `an address of the Docker network ${network.name}`,
        })),
      );
      const hookToken = randomBytes(32).toString('hex');
      made.proxy = await EgressProxy.listen(
        {
          environmentId,
          allowlist: params.allowlist,
          hookToken,
          ...(settings.resolve ? { resolve: settings.resolve } : {}),
          ...(settings.caCerts ? { caCerts: settings.caCerts } : {}),
          ...(settings.testing ? { testing: settings.testing } : {}),
          ...(settings.connectTimeoutMs ? { connectTimeoutMs: settings.connectTimeoutMs } : {}),
          ...(settings.idleTimeoutMs ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
          addressPolicy: { blockedNetworks },
          logger,
          onRecord: params.onRecord,
        },
        { path: socketPath },
      );

      const name = networkName(environmentId);
      const network = await networks.createNetwork({
        name,
        labels: ownershipLabels(environmentId, 'network', controller),
        internal: true,
        options: { ...INTERNAL_NETWORK_OPTIONS },
      });
      made.network = network.id;
      checkIsolated(network);

      made.relay = await client.createContainer({
        name: relayName(environmentId),
        image: params.image,
        labels: ownershipLabels(environmentId, 'egress', controller),
        mounts: [],
        bindMounts: [{ source: folder, target: RELAY_SOCKET_DIR, readOnly: true }],
        readOnlyTmpfs: ['/dev/shm', '/dev/mqueue'],
        writableTmpfs: [],
        memoryMb: 64,
        cpus: 0.5,
        pidsLimit: 32,
        capabilities: [],
        network: name,
        env: [
          `HOOKBOX_RELAY_SOCKET=${RELAY_SOCKET_DIR}/proxy.sock`,
          `HOOKBOX_RELAY_PORT=${RELAY_PORT}`,
        ],
        sysctls: { 'net.ipv6.conf.all.disable_ipv6': '1' },
        user: '65534:65534',
        entrypoint: ['/usr/bin/tini', '--', '/usr/bin/python3', '-I', '-B', '-c', relayCode()],
      });
      await relayReady(client, made.relay);
      const relayAddress = await networks.containerAddress(made.relay, name);
      if (!relayAddress)
        throw new SystemError('sandbox_failed', `the egress relay has no address on ${name}`);
      logger.info(
        {
          environmentId,
          network: name,
          relay: relayAddress,
          allowlist: params.allowlist.describe(),
        },
        'egress ready',
      );
      return new EnvironmentEgress(
        environmentId,
        name,
        relayAddress,
        made.proxy,
        hookToken,
        params.allowlist,
        cleanup,
      );
    } catch (error) {
      logger.warn(
        { environmentId, error: (error as Error).message },
        'egress set-up failed; removing what was made',
      );
      await cleanup();
      throw error;
    }
  }

  /**
   * Stops the proxy (it stops listening and cuts its tunnels) and leaves the relay and the network:
   * the controller is stopping but the environment stays (a durable `hookbox serve`).
   */
  async release(): Promise<void> {
    await this.proxy.close().catch(() => {});
  }

  /** Removes the relay, the network and the proxy. Safe to call twice. */
  async destroy(): Promise<void> {
    await this.cleanup();
  }
}

/**
 * The internal network must not give the host an address: if the engine ignored inhibit_ipv4, the
 * sandbox could reach every host service on it. Refuse to go on rather than trust it.
 */
function checkIsolated(network: NetworkSummary): void {
  if (!network.internal)
    throw new SystemError(
      'sandbox_failed',
      `the Docker engine made ${network.name} without Internal`,
    );
  for (const address of localInterfaceAddresses()) {
    const subnet = network.subnets.find((cidr) => addressInCidr(address, cidr));
    if (subnet)
      throw new SystemError(
        'sandbox_failed',
        `the host holds ${address} on the internal network ${network.name} (${subnet}): this Docker engine ignores com.docker.network.bridge.inhibit_ipv4, so the sandbox could reach host services; refusing to make a networked environment`,
      );
  }
}
