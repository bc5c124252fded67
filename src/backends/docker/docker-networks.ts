// The Docker engine's networks: an environment's internal network and the relay's address on it
// (docs/network.md), for the Docker backend (src/backends/docker/docker-backend.ts).
import type Docker from 'dockerode';
import { unlessNotFound, type EngineCall } from './docker-engine-call.js';
import type { NetworkSpec, NetworkStore, NetworkSummary } from '../../sandbox/network-store.js';

function networkSummary(info: Docker.NetworkInspectInfo): NetworkSummary {
  return {
    id: info.Id,
    name: info.Name,
    labels: info.Labels ?? {},
    internal: info.Internal,
    subnets: (info.IPAM?.Config ?? []).flatMap((config) => (config.Subnet ? [config.Subnet] : [])),
    options: info.Options ?? {},
  };
}

export class DockerNetworks implements NetworkStore {
  constructor(
    private readonly docker: Docker,
    private readonly call: EngineCall,
  ) {}

  async createNetwork(spec: NetworkSpec): Promise<NetworkSummary> {
    const network = await this.call('create network', { network: spec.name }, () =>
      this.docker.createNetwork({
        Name: spec.name,
        Driver: 'bridge',
        Internal: spec.internal,
        CheckDuplicate: true,
        EnableIPv6: false,
        Labels: spec.labels,
        Options: spec.options,
      }),
    );
    const info = await this.call('inspect network', { network: spec.name }, () =>
      network.inspect(),
    );
    return networkSummary(info);
  }

  async removeNetwork(nameOrId: string): Promise<void> {
    await unlessNotFound(
      this.call('remove network', { network: nameOrId }, () =>
        this.docker.getNetwork(nameOrId).remove(),
      ),
    );
  }

  async listNetworks(labelFilter: string[]): Promise<NetworkSummary[]> {
    const list = await this.call('list networks', { labelFilter }, () =>
      this.docker.listNetworks(labelFilter.length > 0 ? { filters: { label: labelFilter } } : {}),
    );
    return list.map(networkSummary);
  }

  async containerAddress(id: string, network: string): Promise<string | undefined> {
    const info = await this.call('inspect container', { containerId: id }, () =>
      this.docker.getContainer(id).inspect(),
    );
    const address = info.NetworkSettings?.Networks?.[network]?.IPAddress;
    return address ? address : undefined;
  }
}
