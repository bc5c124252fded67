import type { ContainerRuntime } from '../sandbox/container-runtime.js';
import type { Logger } from '../record/logger.js';
import { volumeName } from '../sandbox/sandbox.js';
import { workspaceDiskUsage } from '../sandbox/workspace-disk.js';

/** How often workspace volumes are measured. @default 30 s */
export const DEFAULT_DISK_MEASURE_INTERVAL_MS = 30_000;

/**
 * What each environment's workspace volume (or disk) and each snapshot's volume holds, measured by
 * the engine every interval (Docker volumes have no size limit of their own, so a tenant's
 * `disk_mb` quota is checked against the last measurement when a request comes; docs/tenants.md,
 * "What counts against disk_mb").
 */
export class WorkspaceDisk {
  private sizes = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private measuring: Promise<void> | undefined;

  constructor(
    private readonly client: ContainerRuntime & Required<Pick<ContainerRuntime, 'volumeSizes'>>,
    private readonly logger?: Logger,
    everyMs = DEFAULT_DISK_MEASURE_INTERVAL_MS,
    /** Where workspace disks are mounted (docs/security.md, "Workspace disk"); their use counts. */
    private readonly diskRoot?: string,
  ) {
    this.timer = setInterval(() => void this.refresh(), everyMs);
    this.timer.unref();
  }

  /** Measures again now (one measurement at a time). */
  refresh(): Promise<void> {
    this.measuring ??= this.client
      .volumeSizes()
      .then((sizes) => {
        if (this.diskRoot)
          for (const [id, bytes] of workspaceDiskUsage(this.diskRoot))
            sizes.set(volumeName(id, 'workspace'), bytes);
        this.sizes = sizes;
      })
      .catch((error: unknown) =>
        this.logger?.warn({ error: (error as Error).message }, 'measuring workspace disk failed'),
      )
      .finally(() => {
        this.measuring = undefined;
      });
    return this.measuring;
  }

  /** Bytes a volume (a snapshot's) held at the last measurement; undefined: not measured. */
  sizeOf(volume: string): number | undefined {
    return this.sizes.get(volume);
  }

  /** Bytes the workspaces of these environments held at the last measurement. */
  usedBy(environmentIds: readonly string[]): number {
    let total = 0;
    for (const id of environmentIds) total += this.sizes.get(volumeName(id, 'workspace')) ?? 0;
    return total;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
