/**
 * Shared state for controller hooks, one store per environment, per interaction and per tool call.
 * Reads fall through to the enclosing levels so a call-level hook can see what an environment-level
 * hook remembered; writes stay local so that one call cannot clobber another call's state by accident.
 */
export type ContextLevel = 'environment' | 'interaction' | 'call';

/** Which levels may enclose which: a call outside any interaction (`hookbox call`) sits directly under its environment. */
const ALLOWED_PARENT_LEVELS: Record<ContextLevel, readonly ContextLevel[]> = {
  environment: [],
  interaction: ['environment'],
  call: ['environment', 'interaction'],
};

export interface ContextStoreOptions {
  /**
   * The level this store belongs to.
   * @default 'environment'
   */
  level?: ContextLevel;
  /** The enclosing store; required for every level but `environment`, which has none. */
  parent?: ContextStore;
}

export class ContextStore {
  readonly level: ContextLevel;
  readonly parent: ContextStore | null;
  private readonly values = new Map<string, unknown>();
  /** The tail of each key's queue of `update`s; an entry exists only while updates are pending. */
  private readonly updateQueues = new Map<string, Promise<unknown>>();

  constructor(options: ContextStoreOptions = {}) {
    this.level = options.level ?? 'environment';
    this.parent = options.parent ?? null;
    const allowedParents = ALLOWED_PARENT_LEVELS[this.level];
    if (
      this.parent === null ? allowedParents.length > 0 : !allowedParents.includes(this.parent.level)
    ) {
      const expected =
        allowedParents.length === 0
          ? 'no parent'
          : `a parent at level ${allowedParents.join(' or ')}`;
      throw new TypeError(
        `a ${this.level} context store needs ${expected}, got ${this.parent === null ? 'none' : this.parent.level}`,
      );
    }
  }

  /** A store one level down, for an interaction of this environment or a call of this environment or interaction. */
  createChild(level: 'interaction' | 'call'): ContextStore {
    return new ContextStore({ level, parent: this });
  }

  /** The value at this level, or else at the nearest enclosing level that has the key. */
  get(key: string): unknown {
    if (this.values.has(key)) return this.values.get(key);
    return this.parent === null ? undefined : this.parent.get(key);
  }

  /** Whether this level or an enclosing one has the key. */
  has(key: string): boolean {
    return this.values.has(key) || (this.parent !== null && this.parent.has(key));
  }

  /**
   * Writes at this level only; the enclosing levels keep their value, now shadowed here.
   * A `set` is not queued behind pending `update`s of the same key: a pending update that finishes
   * later overwrites it. Use `update` for every write of a key that is updated concurrently.
   */
  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }

  /** Removes the key at this level only, which uncovers an enclosing level's value if there is one. */
  delete(key: string): boolean {
    return this.values.delete(key);
  }

  /**
   * Atomic read-modify-write of this level's value: `compute` gets the value stored at this level
   * (never a parent's, because a parent's value can change under us without going through this
   * queue) and its result is stored here. Updates of one key run one at a time, in call order, even
   * when `compute` is async, so none is lost. If `compute` throws, the value is left as it was, the
   * returned promise rejects, and the next queued update still runs.
   * @returns the value stored.
   */
  update<T>(key: string, compute: (current: unknown) => T | Promise<T>): Promise<T> {
    const previous = this.updateQueues.get(key) ?? Promise.resolve();
    const result = previous.then(async () => {
      const next = await compute(this.values.get(key));
      this.values.set(key, next);
      return next;
    });
    // The queue must survive a failed update, or every later update of the key would reject too.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.updateQueues.set(key, tail);
    void tail.then(() => {
      if (this.updateQueues.get(key) === tail) this.updateQueues.delete(key);
    });
    return result;
  }

  /** This store or the enclosing store at `level`; a call outside any interaction has no interaction level. */
  at(level: 'environment'): ContextStore;
  at(level: ContextLevel): ContextStore | undefined;
  at(level: ContextLevel): ContextStore | undefined {
    if (this.level === level) return this;
    return this.parent === null ? undefined : this.parent.at(level);
  }
}
