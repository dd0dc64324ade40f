/**
 * A failure that repeats while its cause lasts (a poll every half second while the database is
 * away): logged at the first attempt of a run and then once per `everyMs`, not at every attempt.
 */
export class RepeatedFailure {
  private failures = 0;
  private loggedAt = 0;

  constructor(private readonly everyMs = 60_000) {}

  /** Counts a failure; true when it should be logged (the first of a run, then one per `everyMs`). */
  failed(now = Date.now()): boolean {
    this.failures += 1;
    if (this.failures > 1 && now - this.loggedAt < this.everyMs) return false;
    this.loggedAt = now;
    return true;
  }

  /** The failures of the run so far. */
  get count(): number {
    return this.failures;
  }

  /** Ends the run (the attempt succeeded); returns how many failures it had. */
  succeeded(): number {
    const failures = this.failures;
    this.failures = 0;
    return failures;
  }
}
