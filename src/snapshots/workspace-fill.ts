// Filling new environments' workspaces and gates from a copy source, N at once with one helper.
import { SANDBOX_PATHS } from '../sandbox/protocol/paths.js';
import type { FillTarget, TreeSource, WorkspaceFill } from '../sandbox/sandbox-create.js';
import type { CopyPlan, HelperMount } from './copy-helper.js';

/** The mirror of /.agents inside /workspace, as a path under the workspace's root. */
const AGENTS_MIRROR_IN_WORKSPACE = SANDBOX_PATHS.agentsMirror.slice(SANDBOX_PATHS.workspace.length);

/** Runs the helper over the targets; calls `onStarted` once its container runs. */
export type BatchCopy = (targets: FillTarget[], onStarted: () => void) => Promise<void>;

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
  // The new sandbox's container starts while the helper copies (docs/environments.md, "Snapshots
  // and forks", How it works), and the engine makes the mirror's mountpoint in the workspace as it
  // starts: made first here, `cp -a` finds it instead of racing the engine to it ("File exists").
  const folders: string[] = [];
  targets.forEach((target, index) => {
    folders.push(`/to${index}/workspace${AGENTS_MIRROR_IN_WORKSPACE}`);
    mounts.push(
      { source: target.workspace, target: `/to${index}/workspace`, readOnly: false },
      { source: { volume: target.agents }, target: `/to${index}/agents`, readOnly: false },
    );
    copies.push(
      { from: '/from/workspace', to: `/to${index}/workspace` },
      { from: '/from/agents', to: `/to${index}/agents` },
    );
  });
  return { mounts, folders, copies };
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
  private readonly started: Deferred = deferred();
  private readonly done: Deferred = deferred();

  constructor(
    count: number,
    private readonly copy: BatchCopy,
  ) {
    this.targets = new Array<FillTarget | undefined>(count).fill(undefined);
    // A copy or two: the engine is not busy enough for the helper to wait behind the sandboxes,
    // and starting them together is faster (measured: bench/snapshots.ts).
    if (count < FillBatch.WAIT_FROM) this.started.resolve();
  }

  /** From this many copies on, the sandboxes' containers are made once the helper has started. */
  static readonly WAIT_FROM = 3;

  /** The fill of slot `index` (each slot fills once). */
  fill(index: number): WorkspaceFill {
    return (target) => {
      this.targets[index] = target;
      this.settle();
      return { started: this.started.promise, done: this.done.promise };
    };
  }

  /** Slot `index` failed before its volumes existed: the others need not wait for it. */
  withdraw(index: number): void {
    if (this.targets[index] !== undefined) return;
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
    this.run =
      targets.length > 0 ? this.copy(targets, () => this.started.resolve()) : Promise.resolve();
    this.run.then(
      () => {
        this.started.resolve();
        this.done.resolve();
      },
      (error: unknown) => {
        this.started.resolve();
        this.done.reject(error);
      },
    );
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Awaited by the creations; a failure with none waiting is no unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}
