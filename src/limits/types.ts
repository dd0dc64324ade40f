/**
 * Types of the rate-limit engine: the store contract (sliding window + concurrency slots)
 * and what the resolver and header helpers exchange. Types only.
 */
import type { Tier } from '../ir/index.ts';
import type { MaybePromise } from '../util/index.ts';

/** The outcome of one `hit()` on a sliding window. */
export interface RateLimitResult {
  /** True when the hit was admitted (and counted). */
  allowed: boolean;
  /** The limit the hit was checked against. */
  limit: number;
  /** Hits still admissible in the current window after this one. */
  remaining: number;
  /** Hits counted in the window, including this one when admitted. */
  used: number;
  /** Ms epoch when the oldest counted hit leaves the window (or, when throttled, when the next hit is admitted). */
  resetAt: number;
  /** Ms until a hit would be admitted again; 0 when allowed. */
  retryAfterMs: number;
  /** The store could not be consulted and the hit was admitted by the fail-open policy. */
  degraded?: boolean;
}

/** One held concurrency slot; release it when the request finishes (idempotent). */
export interface ConcurrencyLease {
  readonly id: string;
  /** Slots still free for the key right after this one was taken. */
  readonly remaining: number;
  /** The store could not be consulted and the slot was granted by the fail-open policy. */
  readonly degraded?: boolean;
  /** At once for a lease of an in-process store; a promise for a shared one. */
  release(): MaybePromise<void>;
}

/**
 * Repository for rate-limit state; memory for one process, Redis for several. A store that
 * keeps its state in this process answers at once (a value: the request path takes no promise
 * for a check that never waits); a shared one answers with a promise, which rejects on failure.
 */
export interface RateLimitStore {
  /**
   * Exact sliding window: admits the hit when fewer than `limit` hits lie in (now - windowMs, now].
   * `now` (ms epoch) is for tests and replays; by default each store uses its own clock
   * (the memory store `Date.now()`, the Redis store the Redis server's `TIME`).
   */
  hit(key: string, limit: number, windowMs: number, now?: number): MaybePromise<RateLimitResult>;
  /**
   * Takes one of `max` in-flight slots for `key`, or returns null when all are held.
   * A slot not released within `ttlMs` frees itself (so a crashed process leaks nothing).
   */
  acquire(key: string, max: number, ttlMs: number): MaybePromise<ConcurrencyLease | null>;
  /**
   * Stores in another process (Redis): resolves true once it answers, false when it has not
   * within `timeoutMs`; never rejects. A store in this process has nothing to wait for.
   */
  ready?(timeoutMs: number): Promise<boolean>;
  /** What a request meets while the store cannot be consulted (stores in another process). */
  readonly onError?: StoreErrorPolicy;
  /**
   * Stores in another process: false while it cannot be reached (its last command or connection
   * attempt failed), read from memory without a call; /health reports it.
   */
  reachable?(): boolean;
  /** Stops timers and closes connections the store owns. */
  close(): Promise<void>;
}

/** What to do with a request when the shared store is unreachable. */
export type StoreErrorPolicy = 'open' | 'closed';

/** Whose budget a limit counts against; the value of X-RateLimit-Resource. */
export type LimitScope = 'ip' | 'user' | 'api_key';

export type { Tier };

/** Which row of the spec §8.1 resolution order produced a limit. */
export type LimitSource = 'api_key' | 'tier' | 'endpoint' | 'default';

/** The caller and route a limit is resolved for. Ids only: never pass a key secret. */
export interface LimitSubject {
  method: string;
  /** Request path; a query string and trailing slash are ignored. */
  path: string;
  /** Client IP as the HTTP layer determined it. */
  ip: string;
  /** The authenticating API key (its id, not the secret) and its custom RPM, if any. */
  apiKey?: { id: string; rpm?: number | null };
  /** The account behind the caller, its tier and an operator-set custom RPM, if any. */
  account?: { id: string; tier?: Tier; rpm?: number | null };
}

/** A limit to enforce: `limit` hits per `windowMs` counted under `key`. */
export interface ResolvedLimit {
  limit: number;
  windowMs: number;
  scope: LimitScope;
  /** Store key (without the store prefix). */
  key: string;
  source: LimitSource;
}

/** A concurrency cap to enforce with `store.acquire(key, max, ttlMs)`. */
export interface ResolvedConcurrency {
  max: number;
  ttlMs: number;
  key: string;
}
