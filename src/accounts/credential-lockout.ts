import { GatewayError } from '../errors/index.ts';
import { buildRateLimitHeaders, normalizeIp, retryAfterSeconds, type RateLimitResult, type RateLimitStore } from '../limits/index.ts';
import { andThen, type MaybePromise } from '../util/index.ts';

/** Addresses remembered as locked out at most (the oldest is forgotten first): an attacker with many addresses cannot grow it without bound. */
const LOCKED_KEPT = 10_000;

export interface CredentialLockoutOptions {
  limiter: RateLimitStore;
  /** Failed credentials one client address may send per window; null: not counted. */
  max: number | null;
  windowMs: number;
  /** Ms epoch now (the lock's end is read against it). */
  now: () => number;
  /** The limiter's `now` for each hit (tests); absent: the store's own clock. */
  limiterNow?: () => number;
}

/**
 * Failed credentials per client address on the dashboard and admin surfaces (a session token,
 * the admin token; docs/accounts-and-limits.md): each failure is a hit on the rate-limit store
 * (shared through Redis when the limits are), and the one past `max` locks the address out
 * until its oldest failure leaves the window. The lock is kept in this process, so a request
 * with a good credential asks no store (an operator is never slowed), and while it lasts every
 * request of the address is refused, a right guess too: the guesser learns nothing.
 */
export class CredentialLockout {
  /** Address → ms epoch its lock ends. */
  private readonly locked = new Map<string, number>();

  constructor(private readonly o: CredentialLockoutOptions) {}

  /** The 429 for an address that is locked out now, from memory; undefined when it is not. */
  refusal(clientAddress: string): GatewayError | undefined {
    const address = normalizeIp(clientAddress);
    const until = this.locked.get(address);
    if (until === undefined) return undefined;
    const left = until - this.o.now();
    if (left > 0) return this.lockedError(left);
    this.locked.delete(address);
    return undefined;
  }

  /** Counts a failed credential; the 429 when it was one too many (the address is locked from now), else undefined. */
  failed(clientAddress: string): MaybePromise<GatewayError | undefined> {
    const max = this.o.max;
    if (max === null) return undefined;
    const address = normalizeIp(clientAddress);
    return andThen(this.o.limiter.hit(`ip:${address}:failed-credentials`, max, this.o.windowMs, this.o.limiterNow?.()), (result) => (result.allowed ? undefined : this.lock(address, result)));
  }

  private lock(address: string, result: RateLimitResult): GatewayError {
    const left = Math.max(1000, result.retryAfterMs);
    this.locked.delete(address);
    if (this.locked.size >= LOCKED_KEPT) this.locked.delete(this.locked.keys().next().value!);
    this.locked.set(address, this.o.now() + left);
    return this.lockedError(left, result);
  }

  private lockedError(leftMs: number, result?: RateLimitResult): GatewayError {
    const max = this.o.max ?? 0;
    const shown: RateLimitResult = result ?? { allowed: false, limit: max, remaining: 0, used: max, resetAt: this.o.now() + leftMs, retryAfterMs: leftMs };
    const seconds = retryAfterSeconds(shown);
    const per = this.o.windowMs === 60_000 ? 'minute' : `${this.o.windowMs / 1000} s`;
    return new GatewayError('rate_limit_exceeded', `Too many failed credentials from this address (at most ${max} per ${per}, limits.failedCredentials); retry in ${seconds} s.`, {
      retryAfter: seconds,
      retryAfterMs: shown.retryAfterMs,
      details: { limit: max, scope: 'ip', setting: 'limits.failedCredentials' },
      headers: buildRateLimitHeaders({ result: shown, scope: 'ip' }),
    });
  }
}
