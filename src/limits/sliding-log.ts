/**
 * Timestamps (ms) of admitted hits for one key, oldest first, kept as runs: one slot per distinct
 * millisecond with its count, in a growable ring buffer. Exact: the window holds the same hits as
 * a list of every timestamp would, but a busy key (enterprise's 1,000,000 a minute, thousands of
 * hits a second, several per millisecond) takes a slot per millisecond instead of one per hit.
 * Admission keeps at most `limit` live hits, so memory per key is O(min(limit, ms in the window))
 * and every operation is O(1) amortised, but `at(i)` for i > 0 (a lowered limit), which walks runs.
 */
export class SlidingLog {
  private times: number[];
  private counts: number[];
  private head = 0;
  private runs = 0;
  private total = 0;
  /** Window of the last hit; the sweeper uses it to tell idle logs. */
  windowMs = 0;

  constructor(capacity = 4) {
    const n = Math.max(1, capacity);
    this.times = new Array<number>(n).fill(0);
    this.counts = new Array<number>(n).fill(0);
  }

  /** Hits in the log. */
  get size(): number {
    return this.total;
  }

  /** Drops entries at or before `cutoff` (they left the window). */
  prune(cutoff: number): void {
    const times = this.times;
    while (this.runs > 0 && times[this.head] <= cutoff) {
      this.total -= this.counts[this.head];
      this.head = (this.head + 1) % times.length;
      this.runs--;
    }
  }

  /** The i-th oldest hit (0 = oldest). */
  at(i: number): number {
    const times = this.times;
    let slot = this.head;
    let left = i;
    for (let r = 0; r < this.runs; r++) {
      const count = this.counts[slot];
      if (left < count) return times[slot];
      left -= count;
      slot = (slot + 1) % times.length;
    }
    return times[(this.head + this.runs - 1) % times.length];
  }

  /** Distinct milliseconds held (what the log's memory grows with). */
  get runCount(): number {
    return this.runs;
  }

  newest(): number | undefined {
    return this.runs === 0 ? undefined : this.times[(this.head + this.runs - 1) % this.times.length];
  }

  /** Appends a hit; clamps it to the newest so the log stays sorted if the clock steps back. */
  push(t: number): void {
    const last = this.newest();
    this.total++;
    if (last !== undefined && t <= last) {
      this.counts[(this.head + this.runs - 1) % this.times.length]++;
      return;
    }
    if (this.runs === this.times.length) this.grow();
    const slot = (this.head + this.runs) % this.times.length;
    this.times[slot] = t;
    this.counts[slot] = 1;
    this.runs++;
  }

  private grow(): void {
    const n = this.times.length;
    const times = new Array<number>(n * 2).fill(0);
    const counts = new Array<number>(n * 2).fill(0);
    for (let r = 0; r < this.runs; r++) {
      const slot = (this.head + r) % n;
      times[r] = this.times[slot];
      counts[r] = this.counts[slot];
    }
    this.times = times;
    this.counts = counts;
    this.head = 0;
  }
}
