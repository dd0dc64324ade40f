/**
 * Timestamps of admitted hits for one key, oldest first, in a growable ring buffer.
 * Admission keeps at most `limit` live entries, so memory per key is O(limit) and
 * every operation is O(1) amortised (each timestamp is pushed and pruned once).
 */
export class SlidingLog {
  private buf: number[];
  private head = 0;
  private count = 0;
  /** Window of the last hit; the sweeper uses it to tell idle logs. */
  windowMs = 0;

  constructor(capacity = 4) {
    this.buf = new Array<number>(Math.max(1, capacity)).fill(0);
  }

  get size(): number {
    return this.count;
  }

  /** Drops entries at or before `cutoff` (they left the window). */
  prune(cutoff: number): void {
    while (this.count > 0 && this.buf[this.head] <= cutoff) {
      this.head = (this.head + 1) % this.buf.length;
      this.count--;
    }
  }

  /** The i-th oldest entry (0 = oldest). */
  at(i: number): number {
    return this.buf[(this.head + i) % this.buf.length];
  }

  newest(): number | undefined {
    return this.count === 0 ? undefined : this.at(this.count - 1);
  }

  /** Appends a timestamp; clamps it to the newest so the log stays sorted if the clock steps back. */
  push(t: number): void {
    if (this.count === this.buf.length) this.grow();
    const last = this.newest();
    this.buf[(this.head + this.count) % this.buf.length] = last !== undefined && t < last ? last : t;
    this.count++;
  }

  private grow(): void {
    const next = new Array<number>(this.buf.length * 2).fill(0);
    for (let i = 0; i < this.count; i++) next[i] = this.at(i);
    this.buf = next;
    this.head = 0;
  }
}
