import { roundCredits } from '../../billing/index.ts';

/** A slice is leased for this many requests of the size that asked (topped up when a quarter is left). */
export const SLICE_REQUESTS = 256;
/** After a top-up found too little (or a cap), requests go to the database one by one for this long before leasing is tried again. */
export const EXACT_FOR_MS = 1_000;

/** Credits and tokens a request holds until it settles: in the shared database, or in this instance's leased slice. */
export interface SharedHold {
  readonly requestId: string;
  readonly credits: number;
  readonly tokens: number;
  open: boolean;
  /** Admitted from this instance's leased slice of the account (no database call); absent: a hold row of its own, or none. */
  readonly slice?: Slice;
  /** The account of a hold row of its own (its release is waited for by the account's next admission). */
  readonly accountId?: string;
}

/**
 * This instance's slice of one account's balance: `leased` credits held in the database under
 * `leaseId`, of which requests in flight hold `reserved` and settled requests (not shipped yet)
 * took `charged`. Admission from it is synchronous and follows the credit book's rules.
 */
export class Slice {
  leased = 0;
  charged = 0;
  reserved = 0;
  lastUse = 0;
  /** Size of the requests it was last topped up for (the next top-up's unit). */
  unit = 0;
  /** What the next top-up asks for: doubles while top-ups come less than a second apart (a busy account), back to the start when idle. */
  want = 0;
  lastTopUp = 0;
  topUp: Promise<void> | undefined;
  closing: Promise<void> | undefined;
  /** Until then requests that do not fit go to the database one by one (too little available, or a cap). */
  exactUntil = 0;
  /** The account has too little available for slices: no new holds from this one, and it goes back as soon as none is held. */
  draining = false;
  shrinking: Promise<void> | undefined;
  /** Heartbeats stopped for a while: the hold may have been swept; the next top-up trusts what the database says it holds. */
  suspect = false;

  constructor(
    readonly accountId: string,
    readonly leaseId: string,
  ) {}

  get free(): number {
    return roundCredits(this.leased - this.charged - this.reserved);
  }

  /** Holds `credits` when the slice covers them (a priced request of unknown size needs some left). */
  take(credits: number, needsBalance: boolean): boolean {
    if (this.closing || this.draining) return false;
    const free = this.free;
    if (credits > free || (needsBalance && free <= 0)) return false;
    this.reserved = roundCredits(this.reserved + credits);
    return true;
  }

  /**
   * What a request that cost `cost` charges: all of it. Within its reservation the slice covers
   * it; a request that cost more takes the rest from what the slice has free, and past that the
   * database takes it from the account's available balance when the line is sent (never below
   * zero: `gw_settle_leased` bounds the part the lease hold does not cover).
   */
  chargeable(cost: number): number {
    return cost <= 0 ? 0 : roundCredits(cost);
  }

  /** Ends a request's hold, charging `charged` (0 for a release). */
  settle(hold: SharedHold, charged: number): void {
    if (hold.open) this.reserved = roundCredits(Math.max(0, this.reserved - hold.credits));
    hold.open = false;
    this.charged = roundCredits(this.charged + charged);
  }
}
