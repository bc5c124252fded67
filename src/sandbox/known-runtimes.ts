import type { ContainerRuntime } from './container-runtime.js';
import { UserError } from '../errors/index.js';

/**
 * The OCI runtimes the engine knows (Docker's `runtimes`, docs/gvisor.md), so that a name it does
 * not know is the caller's mistake, refused with a 400 naming the field before anything is made,
 * rather than the engine's error halfway through making a container. Read once and again whenever
 * a name is missing: dockerd reloads its runtimes on SIGHUP without a restart.
 */
export class KnownRuntimes {
  private known: Promise<readonly string[] | undefined> | undefined;

  constructor(private readonly client: Pick<ContainerRuntime, 'runtimes'>) {}

  /** Throws `invalid_argument` naming `field` when the engine has no runtime called `runtime`. */
  async check(runtime: string, field: string): Promise<void> {
    let known = await this.list(false);
    if (known === undefined || known.includes(runtime)) return;
    known = await this.list(true);
    if (known === undefined || known.includes(runtime)) return;
    throw new UserError(
      'invalid_argument',
      `${field}: the engine has no runtime ${JSON.stringify(runtime)}; it has ${known.map((name) => JSON.stringify(name)).join(', ')} (docs/gvisor.md says how to add "runsc")`,
      { details: { field, allowed: [...known] } },
    );
  }

  /** Undefined where the backend has no such list (Kubernetes maps runtimes to classes instead). */
  private list(fresh: boolean): Promise<readonly string[] | undefined> {
    if (!this.client.runtimes) return Promise.resolve(undefined);
    if (fresh || !this.known) {
      const asked = this.client.runtimes().then((names) => [...names].sort());
      // A failed look-up is not remembered: the next check asks again.
      asked.catch(() => {
        if (this.known === asked) this.known = undefined;
      });
      this.known = asked;
    }
    return this.known;
  }
}
