import { rmSync } from 'node:fs';
import type { PlacedSource } from '../config/sources.js';
import type { CallOutcome } from '../controller/call-outcome.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ToolCall } from '../tools/types.js';

/**
 * What a fixture run uses of an environment (`Environment`'s members of these names): its calls,
 * its agent for probes and restores, its engine's list of root-filesystem changes, its deletion
 * and its audit log. The real `Environment` meets it, and so does the unit tests' fake
 * (docs/testing.md, "Fakes the compiler checks").
 */
export interface FixtureEnvironment {
  readonly auditLogPath: string;
  readonly sandbox: Pick<Sandbox, 'request' | 'addWorkspaceSources' | 'rootFilesystemChanges'>;
  call(call: ToolCall): Promise<CallOutcome>;
  delete(): Promise<void>;
}

/**
 * What tool code could have changed outside /workspace by walking the root filesystem (file tree
 * metadata) and hashing /.agents: for an engine that cannot list a container's changes itself.
 */
const ROOT_WALK = [
  "{ find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /workspace \\) -prune -o -printf '%p %y %s %m %U %T@\\n' 2>/dev/null | sort;",
  '  find /.agents -type f -exec sha256sum {} + 2>/dev/null | sort; } | sha256sum',
].join('\n');

/** The gates' tree (metadata and contents) as one hash: /.agents is a volume, not the root filesystem. */
const AGENTS_HASH = [
  "{ find /.agents -printf '%p %y %s %m %U %G %l\\n' 2>/dev/null | sort;",
  '  find /.agents -type f -exec sha256sum {} + 2>/dev/null | sort; } | sha256sum',
].join('\n');

/**
 * The workspace as a case finds it: every entry's type, size, mode, owner and link target and every
 * file's hash (not times). The read-only mirror of the gates at /workspace/.agents is left out.
 */
const WORKSPACE_HASH = [
  "{ cd /workspace && find . -path ./.agents -prune -o -printf '%p %y %s %m %U %G %l\\n' | sort;",
  '  find . -path ./.agents -prune -o -type f -exec sha256sum {} + | sort; } 2>&1 | sha256sum',
].join('\n');

/**
 * Empties /workspace as the tool user (tool code may have made folders it cannot enter: they are
 * opened first) and removes the tool user's System V IPC objects, which outlive its processes.
 */
const WIPE_WORKSPACE = [
  'cd /workspace || exit 1',
  'chmod -R u+rwX /workspace 2>/dev/null',
  'find /workspace -mindepth 1 -maxdepth 1 ! -name .agents -exec rm -rf {} + 2>/dev/null',
  'ipcrm --all 2>/dev/null',
  'exit 0',
].join('\n');

async function shell(environment: FixtureEnvironment, code: string): Promise<string> {
  const answer = await environment.sandbox.request(
    'run_code',
    {
      code,
      language: 'bash',
      timeout_ms: 60_000,
      output_cap_bytes: 4096,
      background_processes: false,
    },
    90_000,
  );
  return answer.stdout.trim();
}

/**
 * The state of everything outside /workspace that tool code could reach, compared before and after
 * a destructive call with the gate off: the engine's list of the container's root-filesystem
 * changes (`docker diff`) and a hash of /.agents; where the engine cannot list them, a walk of the
 * root filesystem (docs/gates.md, "How the cases run").
 */
export async function outsideWorkspace(environment: FixtureEnvironment): Promise<string> {
  const changes = await environment.sandbox.rootFilesystemChanges();
  if (changes === undefined) return `walk ${await shell(environment, ROOT_WALK)}`;
  return `diff ${JSON.stringify(changes)} agents ${await shell(environment, AGENTS_HASH)}`;
}

/**
 * One environment that runs case after case of one fixture (docs/gates.md, "How the cases run"). A
 * blocked call never runs, so the next case finds the environment as it was; after a call that ran,
 * the environment is restored before the next case: the tool user's processes killed, /workspace
 * emptied and its fixture files written again, and the workspace's hash checked against the one it
 * had when new. An environment that cannot be restored, or whose call failed, is replaced by a new
 * one.
 */
export class CaseEnvironment {
  private environment: FixtureEnvironment | undefined;
  private pristine = '';
  private changed = false;
  /** The state outside /workspace when the environment was new (containment runs). */
  outsideWhenNew = '';

  constructor(
    private readonly make: () => Promise<FixtureEnvironment>,
    /** The fixture's workspace files, as first placed. */
    private readonly workspaceSources: PlacedSource[],
    private readonly keepAuditLogs: boolean,
    private readonly containment: boolean,
  ) {}

  /** The environment as new, for the next case. */
  async ready(): Promise<FixtureEnvironment> {
    if (this.environment && this.changed && !(await this.restore(this.environment)))
      await this.discard();
    if (!this.environment) {
      const environment = await this.make();
      this.environment = environment;
      this.pristine = await shell(environment, WORKSPACE_HASH);
      if (this.containment) this.outsideWhenNew = await outsideWorkspace(environment);
    }
    this.changed = false;
    return this.environment;
  }

  /** The environment as the last case left it (made if there is none). */
  async current(): Promise<FixtureEnvironment> {
    return this.environment ?? (await this.ready());
  }

  /** The last call ran (it was not blocked): restore the environment before the next case. */
  ran(): void {
    this.changed = true;
  }

  private async restore(environment: FixtureEnvironment): Promise<boolean> {
    try {
      await environment.sandbox.request('kill_tool_processes', {}, 10_000);
      await shell(environment, WIPE_WORKSPACE);
      await environment.sandbox.addWorkspaceSources(this.workspaceSources);
      return (await shell(environment, WORKSPACE_HASH)) === this.pristine;
    } catch {
      return false;
    }
  }

  /**
   * Deletes the environment (and its audit log unless kept); the next case gets a new one. A
   * failure to delete is thrown unless `quietly` (an environment a case may have broken).
   */
  async discard(quietly = true): Promise<void> {
    const environment = this.environment;
    this.environment = undefined;
    if (!environment) return;
    try {
      await environment.delete();
    } catch (error) {
      if (!quietly) throw error;
    } finally {
      if (!this.keepAuditLogs) rmSync(environment.auditLogPath, { force: true });
    }
  }
}
