/** Exponentially weighted moving average of time to first byte, per provider/model. */
export class LatencyTracker {
  private readonly averages = new Map<string, number>();

  constructor(private readonly alpha: number) {}

  record(key: string, ms: number): void {
    const previous = this.averages.get(key);
    this.averages.set(key, previous === undefined ? ms : previous + this.alpha * (ms - previous));
  }

  /** The moving average in ms, or undefined before the first sample. */
  get(key: string): number | undefined {
    return this.averages.get(key);
  }
}
