import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { UserError } from '../errors/index.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One controller per state file: two would re-attach each other's environments and keep each
 * other's orphans. `PATH.lock` holds the owner's pid; a lock whose owner is gone (a `kill -9`) is
 * taken over, one held by a live process is refused, naming the way out (docs/operations.md, State).
 */
export class StateLock {
  private held = false;
  readonly path: string;

  constructor(stateFile: string) {
    this.path = `${stateFile}.lock`;
    for (let attempt = 0; attempt < 2 && !this.held; attempt++) {
      try {
        const fd = openSync(this.path, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        this.held = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = Number(readFileSync(this.path, 'utf8').trim());
        if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner))
          throw new UserError(
            'conflict',
            `state file ${stateFile} is in use by another hookbox controller (pid ${owner}); give this one --state-file with another file, or --no-state`,
            { details: { field: '--state-file', pid: owner } },
          );
        rmSync(this.path, { force: true });
      }
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    rmSync(this.path, { force: true });
  }
}
