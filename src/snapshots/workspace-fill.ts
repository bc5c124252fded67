// Filling new environments' workspaces and gates from a copy source, N at once with one helper.
import type { CopyPlan, HelperMount, TreeSource } from './copy-helper.js';

/** Where a new environment's trees are, once its volumes (or workspace disk) exist. */
export interface FillTarget {
  environmentId: string;
  /** Its /workspace: a volume, or the mount of its workspace disk. */
  workspace: TreeSource;
  /** Its gates' volume (/.agents). */
  agents: string;
}

/**
 * Fills one new environment's trees; called by sandbox creation once its volumes exist, and
 * awaited before the environment is handed out (the container starts meanwhile).
 */
export type WorkspaceFill = (target: FillTarget) => Promise<void>;

/** What the copies come from: a snapshot's volume, or a live environment's trees. */
export type CopySource =
  | { kind: 'snapshot'; volume: string }
  | { kind: 'environment'; workspace: TreeSource; agents: string };

/** The helper plan that copies `source` into every target. */
export function fillPlan(source: CopySource, targets: readonly FillTarget[]): CopyPlan {
  const mounts: HelperMount[] =
    source.kind === 'snapshot'
      ? [{ source: { volume: source.volume }, target: '/from', readOnly: true }]
      : [
          { source: source.workspace, target: '/from/workspace', readOnly: true },
          { source: { volume: source.agents }, target: '/from/agents', readOnly: true },
        ];
  const copies: CopyPlan['copies'] = [];
  targets.forEach((target, index) => {
    mounts.push(
      { source: target.workspace, target: `/to${index}/workspace`, readOnly: false },
      { source: { volume: target.agents }, target: `/to${index}/agents`, readOnly: false },
    );
    copies.push(
      { from: '/from/workspace', to: `/to${index}/workspace` },
      { from: '/from/agents', to: `/to${index}/agents` },
    );
  });
  return { mounts, copies };
}

/** The helper plan that takes a snapshot: an environment's trees into a snapshot volume. */
export function snapshotPlan(
  source: Extract<CopySource, { kind: 'environment' }>,
  volume: string,
): CopyPlan {
  return {
    mounts: [
      { source: source.workspace, target: '/from/workspace', readOnly: true },
      { source: { volume: source.agents }, target: '/from/agents', readOnly: true },
      { source: { volume }, target: '/to', readOnly: false },
    ],
    folders: ['/to/workspace', '/to/agents'],
    copies: [
      { from: '/from/workspace', to: '/to/workspace' },
      { from: '/from/agents', to: '/to/agents' },
    ],
  };
}

/**
 * N environments made at once, filled by one helper: each creation's {@link WorkspaceFill} waits
 * until every creation has made its volumes (or failed before, and withdrawn), then one run copies
 * into all of them. Every slot must either fill or withdraw, or the batch never runs.
 */
export class FillBatch {
  private readonly targets: (FillTarget | undefined)[];
  private settled = 0;
  private run: Promise<void> | undefined;
  private readonly waiting: { resolve(): void; reject(error: unknown): void }[] = [];

  constructor(
    count: number,
    private readonly copy: (targets: FillTarget[]) => Promise<void>,
  ) {
    this.targets = new Array<FillTarget | undefined>(count).fill(undefined);
  }

  /** The fill of slot `index` (each slot fills once). */
  fill(index: number): WorkspaceFill {
    return (target) =>
      new Promise<void>((resolve, reject) => {
        this.targets[index] = target;
        this.waiting.push({ resolve, reject });
        this.settle();
      });
  }

  /** Slot `index` failed before its volumes existed: the others need not wait for it. */
  withdraw(index: number): void {
    if (this.targets[index] !== undefined) return;
    this.targets[index] = undefined;
    this.settle(index);
  }

  private readonly withdrawn = new Set<number>();

  private settle(withdrawn?: number): void {
    if (withdrawn !== undefined) {
      if (this.withdrawn.has(withdrawn)) return;
      this.withdrawn.add(withdrawn);
    }
    this.settled += 1;
    if (this.settled < this.targets.length || this.run) return;
    const targets = this.targets.filter((target): target is FillTarget => target !== undefined);
    this.run = targets.length > 0 ? this.copy(targets) : Promise.resolve();
    this.run.then(
      () => this.waiting.forEach((waiter) => waiter.resolve()),
      (error: unknown) => this.waiting.forEach((waiter) => waiter.reject(error)),
    );
  }
}
