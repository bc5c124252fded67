// A backend's networks: the part per-environment allowlists need, an internal network with the
// egress relay on it (docs/network.md). Docker offers it; the Kubernetes backend does not (its pods
// get the namespace's NetworkPolicy; docs/kubernetes.md, "What each backend offers").

/** A network to make (an environment's internal network). */
export interface NetworkSpec {
  name: string;
  labels: Record<string, string>;
  /** No route out of the network (Docker `Internal`). */
  internal: boolean;
  /** Driver options, such as `com.docker.network.bridge.inhibit_ipv4`. */
  options: Record<string, string>;
}

/** A network as the engine describes it: its subnets, so the proxy and the checks know its addresses. */
export interface NetworkSummary {
  id: string;
  name: string;
  labels: Record<string, string>;
  internal: boolean;
  /** IPAM subnets, e.g. `172.18.0.0/16`. */
  subnets: string[];
  options: Record<string, string>;
}

/** Networks an environment's containers join, and their addresses on them. */
export interface NetworkStore {
  /** Makes a network; returns it as the engine describes it (subnets assigned). */
  createNetwork(spec: NetworkSpec): Promise<NetworkSummary>;
  /** Removes a network by name or id; one that is gone already is fine. */
  removeNetwork(nameOrId: string): Promise<void>;
  /** Networks with these labels (every network for an empty filter). */
  listNetworks(labelFilter: string[]): Promise<NetworkSummary[]>;
  /** The container's IPv4 address on a network, if it is attached to it. */
  containerAddress(id: string, network: string): Promise<string | undefined>;
}
