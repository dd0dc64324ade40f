import { roundCredits } from '../../billing/index.ts';
import type { CreditsRepo, OutboxLine, SettleOutcome } from '../../store/index.ts';
import type { Logger } from '../../util/index.ts';
import { EXACT_FOR_MS, SLICE_REQUESTS, Slice } from './slice.ts';

/** A busy account's top-ups grow up to this many times the first (each at most a quarter of what is available). */
const MAX_GROWTH = 64;
/** Below this many requests of that size available on the account, admission is request by request (no slice). */
const MIN_SLICE_REQUESTS = 64;

export interface SliceLeasesOptions {
  repo: CreditsRepo;
  log: Logger;
  /** Sends the settlements waiting in the outbox (a slice goes back only after its lines are in). */
  flush(): Promise<void>;
  /** `store.leaseIdleMs`: a slice unused this long goes back to the account (default 1,000). */
  leaseIdleMs?: number;
  /** Counts background work a clean stop waits for. */
  track<T>(promise: Promise<T>): Promise<T>;
}

/**
 * This instance's leased slices, one per account: leased and topped up in the background,
 * shrunk when a request needs what they keep, given back when unused, drained or recalled by
 * another instance, and charged down as the outbox's lines reach the database.
 */
export class SliceLeases {
  private readonly slices = new Map<string, Slice>();
  private readonly slicesByLease = new Map<string, Slice>();
  /** Accounts admitted request by request until then, whose slice went back. */
  private readonly exactUntil = new Map<string, number>();
  readonly idleMs: number;
  private stopped = false;

  constructor(private readonly o: SliceLeasesOptions) {
    this.idleMs = o.leaseIdleMs ?? 1_000;
  }

  /** The account's slice, if this instance leases one. */
  get(accountId: string): Slice | undefined {
    return this.slices.get(accountId);
  }

  /** The account's slice, a new (empty) one when there is none. */
  sliceOf(accountId: string): Slice {
    let slice = this.slices.get(accountId);
    if (!slice) {
      slice = new Slice(accountId, `lease:${this.o.repo.instance}:${accountId}`);
      slice.exactUntil = this.exactUntil.get(accountId) ?? 0;
      this.exactUntil.delete(accountId);
      this.slices.set(accountId, slice);
      this.slicesByLease.set(slice.leaseId, slice);
    }
    return slice;
  }

  /**
   * Another instance was refused an admission while slices of the account may sit idle: this
   * instance admits the account request by request for a while and gives its slice back as
   * soon as no request holds anything in it.
   */
  recalled(accountId: string): void {
    const slice = this.slices.get(accountId);
    if (!slice || this.stopped) return;
    slice.exactUntil = Date.now() + EXACT_FOR_MS;
    slice.draining = true;
    this.returnIfDrained(slice);
  }

  /** Heartbeats stopped for a while: every slice's hold may have been swept. */
  suspectAll(): void {
    for (const slice of this.slices.values()) slice.suspect = true;
  }

  /** One top-up call at a time per slice: callers that need one meanwhile wait for the same call. */
  topUp(slice: Slice, credits: number): Promise<void> {
    if (slice.topUp) return slice.topUp;
    const unit = Math.max(credits, slice.unit);
    slice.unit = unit;
    const now = Date.now();
    const base = unit * SLICE_REQUESTS;
    slice.want = now - slice.lastTopUp < 1_000 ? Math.min(Math.max(base, slice.want * 2), base * MAX_GROWTH) : base;
    slice.lastTopUp = now;
    const topUp = this.o.repo
      .lease(slice.leaseId, slice.accountId, roundCredits(slice.want), roundCredits(unit * MIN_SLICE_REQUESTS))
      .then((outcome) => {
        if (outcome.outcome === 'ok') {
          // After a gap in the heartbeats the hold may have been swept: no more than it really has.
          slice.leased = roundCredits(slice.suspect ? Math.min(slice.leased + outcome.granted, outcome.held) : slice.leased + outcome.granted);
          slice.suspect = false;
          slice.draining = false;
          return;
        }
        // Too little available (or a cap): request by request from now on; what the slice has left goes back.
        slice.exactUntil = Date.now() + EXACT_FOR_MS;
        slice.draining = true;
        this.returnIfDrained(slice);
      })
      .finally(() => {
        slice.topUp = undefined;
      });
    slice.topUp = topUp;
    return topUp;
  }

  /** Gives back what the slice has free (one call; callers meanwhile wait for the same one). */
  shrink(slice: Slice): Promise<void> {
    if (slice.shrinking) return slice.shrinking;
    const free = slice.free;
    if (free <= 0) return Promise.resolve();
    // Off the slice at once, so no request takes it meanwhile; a failed call leaves it in the hold until the slice goes back.
    slice.leased = roundCredits(slice.leased - free);
    slice.draining = true;
    const shrinking = this.o.repo
      .lease(slice.leaseId, slice.accountId, -free, 0)
      .then(
        () => undefined,
        (error: unknown) => this.o.log.warn('credits: giving back part of a leased slice failed', { account: slice.accountId, error: String(error) }),
      )
      .finally(() => {
        slice.shrinking = undefined;
        this.returnIfDrained(slice);
      });
    slice.shrinking = shrinking;
    return this.o.track(shrinking);
  }

  /** A draining slice goes back once no request holds anything in it. */
  returnIfDrained(slice: Slice): void {
    if (slice.draining && !slice.closing && !slice.topUp && slice.reserved <= 0 && !this.stopped) void this.giveBack(slice);
  }

  /** Slices unused for `leaseIdleMs` go back: their settlements are sent first, then the lease hold is given back. */
  returnIdle(): void {
    const now = Date.now();
    for (const [account, until] of this.exactUntil) if (until <= now) this.exactUntil.delete(account);
    for (const slice of this.slices.values()) {
      if (slice.closing || slice.topUp || slice.reserved > 0 || (!slice.draining && now - slice.lastUse < this.idleMs)) continue;
      // Given back even when it looks empty here: the hold may keep something this instance no longer counts (a failed shrink).
      void this.giveBack(slice);
    }
  }

  /** The outbox sent lines: what they charged left the lease holds with them. */
  shipped(lines: readonly OutboxLine[], outcomes: readonly SettleOutcome[]): void {
    lines.forEach((line, i) => {
      if (!line.lease) return;
      const slice = this.slicesByLease.get(line.lease);
      if (!slice) return;
      slice.charged = roundCredits(Math.max(0, slice.charged - line.charged_credits));
      if (outcomes[i].inserted) slice.leased = roundCredits(Math.max(0, slice.leased - line.charged_credits));
    });
  }

  /** No slice goes back on its own from now on (the instance is stopping). */
  stop(): void {
    this.stopped = true;
  }

  /** Gives every slice back (`giveBack`: all their lines are in; else the leases stay until the sweep) and forgets them. */
  async close(giveBack: boolean): Promise<void> {
    this.stopped = true;
    if (giveBack) await Promise.allSettled([...this.slices.values()].map((s) => this.o.repo.release(s.leaseId)));
    this.slices.clear();
    this.slicesByLease.clear();
  }

  private giveBack(slice: Slice): Promise<void> {
    const closing = (async () => {
      try {
        await this.o.flush();
        await this.o.repo.release(slice.leaseId);
        this.forget(slice);
      } catch (error) {
        this.o.log.warn('credits: giving a leased slice back failed; tried again later', { account: slice.accountId, error: String(error) });
      } finally {
        slice.closing = undefined;
        slice.lastUse = Date.now();
      }
    })();
    slice.closing = closing;
    return this.o.track(closing);
  }

  private forget(slice: Slice): void {
    // The next slice of the account remembers that it is admitted request by request for now.
    if (slice.exactUntil > Date.now()) this.exactUntil.set(slice.accountId, slice.exactUntil);
    if (this.slices.get(slice.accountId) === slice) this.slices.delete(slice.accountId);
    this.slicesByLease.delete(slice.leaseId);
  }
}
