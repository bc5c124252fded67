/**
 * Runs tasks one at a time, in arrival order. An environment's calls go through one, because a call's
 * clean-up kills every process of the tool user, and a gate swap must see no call in flight.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
