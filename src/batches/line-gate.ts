/**
 * The slots batch lines run in, shared by every batch of an instance, at priority 1 (below
 * live traffic): at most `concurrency` lines at once, one fewer for each live request in flight
 * in the process, but never none (a batch always moves). A line also starts only after the
 * I/O already waiting in the event loop (live requests' sockets) has been handled.
 */
export class LineGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    /** Live (non-batch) requests in flight now. */
    private readonly live: () => number = () => 0,
  ) {}

  /** Lines allowed to run now. */
  allowed(): number {
    return Math.max(1, this.concurrency - this.live());
  }

  /** Lines running now. */
  get inUse(): number {
    return this.running;
  }

  /** Waits for a slot; resolves to the function that gives it back (call it once). */
  async acquire(): Promise<() => void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A line woken but beaten to the slot keeps its place at the front.
    for (let woken = false; this.running >= this.allowed(); woken = true) {
      await new Promise<void>((resolve) => (woken ? this.waiting.unshift(resolve) : this.waiting.push(resolve)));
    }
    this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.wake();
    };
  }

  /** Lets waiting lines look again: as many as may run now (each checks again before it runs). */
  private wake(): void {
    for (let free = this.allowed() - this.running; free > 0 && this.waiting.length > 0; free -= 1) this.waiting.shift()!();
  }
}
