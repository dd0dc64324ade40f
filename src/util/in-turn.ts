/** Runs `work` once every earlier work of the same key has settled (see createTurns). */
export type Turns = <T>(key: string, work: () => Promise<T>) => Promise<T>;

/**
 * A queue per key: `run(key, work)` starts `work` once every earlier work of the same key has
 * settled, so read-check-write sequences of one key never interleave in this process. Keys with
 * nothing queued take no memory.
 */
export function createTurns(): Turns {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
