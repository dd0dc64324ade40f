import type { Logger } from './logger.ts';

export interface PeriodicSweep {
  /** The job's name for a shared store's `claimJob` (one instance per interval runs it). */
  name: string;
  everyMs: number;
  /** A shared store's `claimJob`; absent (the file store), every run is this process's. */
  claim?: (name: string, everyMs: number) => Promise<boolean>;
  /** Deletes what is due; how many. */
  sweep: () => Promise<number>;
  log: Logger;
  /** What the info line says when something was deleted, and the warning when a run failed. */
  done: string;
  failed: string;
}

/**
 * Runs a sweep once now and then every `everyMs` (an unref'd timer); with a shared store only
 * the instance that claims a run does it (claimed for a little less than the interval, so timers
 * that drift apart still run it each time). Returns a function that stops it and resolves once
 * the run under way (if any) has ended, so nothing touches the store or the data dir after it.
 */
export function startPeriodicSweep(options: PeriodicSweep): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    // A run still going when the next is due: that one is skipped.
    if (running) return;
    running = (options.claim ? options.claim(options.name, options.everyMs * 0.9) : Promise.resolve(true))
      .then((mine) => (mine ? options.sweep() : 0))
      .then((removed) => {
        if (removed > 0) options.log.info(options.done, { removed });
      })
      .catch((error: unknown) => options.log.warn(options.failed, { error: String(error) }))
      .finally(() => (running = undefined));
  };
  run();
  const timer = setInterval(run, options.everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
