/**
 * Runs a pass of work on a timer, never two at once. `now()` asks for a pass at once; asked
 * while a pass is under way, the next pass starts right after it (two overlapping passes could
 * both read a record as free and both take it). Each pass returns the delay before the next.
 * A pass should log its own failures; one that rejects anyway is told to `onError` and the next
 * pass comes a second later (no unhandled rejection, no silent end of the passes).
 */
/** The delay before the next pass when a pass rejected. */
const AFTER_FAILURE_MS = 1_000;

export class SerialTimer {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private soon = false;
  private stopped = false;
  /** The pass under way, if any. */
  private current: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<number>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** A pass now, or right after the one under way. */
  now(): void {
    if (this.stopped) return;
    if (this.busy) this.soon = true;
    else this.at(0);
  }

  /**
   * No more passes; resolves once the pass under way, if any, has ended (what it started is then
   * the caller's to wait for: a pass that ends after its owner stopped could take work nobody gives back).
   */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return this.current?.catch(() => undefined) ?? Promise.resolve();
  }

  private at(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      const run = this.run();
      this.current = run;
      void run.finally(() => {
        if (this.current === run) this.current = undefined;
      });
    }, ms);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.busy = true;
    this.soon = false;
    let next = 0;
    try {
      next = await this.pass();
    } catch (error) {
      next = AFTER_FAILURE_MS;
      try {
        this.onError(error);
      } catch {
        // a failing error handler must not end the passes either
      }
    } finally {
      this.busy = false;
    }
    if (!this.stopped) this.at(this.soon ? 0 : next);
  }
}
