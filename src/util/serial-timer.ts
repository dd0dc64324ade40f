/**
 * Runs a pass of work on a timer, never two at once. `now()` asks for a pass at once; asked
 * while a pass is under way, the next pass starts right after it (two overlapping passes could
 * both read a record as free and both take it). Each pass returns the delay before the next.
 * A pass must not reject: it logs its own failures.
 */
export class SerialTimer {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private soon = false;
  private stopped = false;

  constructor(private readonly pass: () => Promise<number>) {}

  /** A pass now, or right after the one under way. */
  now(): void {
    if (this.stopped) return;
    if (this.busy) this.soon = true;
    else this.at(0);
  }

  /** No more passes (one under way ends on its own). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private at(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), ms);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    this.busy = true;
    this.soon = false;
    let next = 0;
    try {
      next = await this.pass();
    } finally {
      this.busy = false;
    }
    if (!this.stopped) this.at(this.soon ? 0 : next);
  }
}
