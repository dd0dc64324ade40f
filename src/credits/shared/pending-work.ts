/** Work in the background that a clean stop waits for (settlements, releases, slices going back). */
export class PendingWork {
  private readonly pending = new Set<Promise<unknown>>();

  /** Counts `promise` until it settles; returns it. */
  track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    const done = () => this.pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** Waits until nothing is pending, work started meanwhile included. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
