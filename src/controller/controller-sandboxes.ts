// How the controller makes a sandbox: the environment's way out first, then its container.
import type { PlacedSource } from '../config/sources.js';
import type { Allowlist } from '../network/allowlist.js';
import type { EgressRecord } from '../record/egress-record.js';
import { EnvironmentEgress, type EgressSettings } from '../network/environment-egress.js';
import type { Logger } from '../record/logger.js';
import type { ContainerClient } from '../sandbox/container-client.js';
import { Sandbox, type ControllerIdentity } from '../sandbox/sandbox.js';
import { diskRootOf } from '../sandbox/workspace-disk.js';
import type { EnvironmentOptions } from './environment-options.js';
import type { WorkspaceFill } from '../sandbox/sandbox-create.js';

/** What making a sandbox needs of the controller. */
export interface SandboxMaking {
  client: ContainerClient;
  logger: Logger;
  identity: ControllerIdentity;
  home: string;
  /** The sandbox image (the egress relay runs from it too). */
  image: string;
  /** The default OCI runtime of its sandboxes. */
  runtime: string;
  egressSettings: EgressSettings | undefined;
}

export async function makeSandbox(
  maker: SandboxMaking,
  environmentId: string,
  sources: PlacedSource[],
  options?: EnvironmentOptions['sandbox'],
  network?: { allowlist: Allowlist; onRecord: (record: EgressRecord) => void },
  image: string = maker.image,
  /** Fills the new workspace and gates from a snapshot or another environment (src/snapshots/). */
  fill?: WorkspaceFill,
): Promise<Sandbox> {
  // The way out first (the sandbox needs the relay's address); the sandbox then owns it.
  const egress = network
    ? await EnvironmentEgress.create({
        client: maker.client,
        logger: maker.logger,
        controller: maker.identity,
        environmentId,
        image: maker.image,
        allowlist: network.allowlist,
        home: maker.home,
        settings: maker.egressSettings,
        onRecord: network.onRecord,
      })
    : undefined;
  return Sandbox.create({
    client: maker.client,
    logger: maker.logger,
    controller: maker.identity,
    environmentId,
    image,
    sources,
    options: { ...options, runtime: options?.runtime ?? maker.runtime },
    ...(egress ? { network: egress } : {}),
    diskRoot: diskRootOf(maker.home),
    ...(fill ? { fill } : {}),
  });
}
