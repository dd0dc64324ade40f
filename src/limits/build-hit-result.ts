import type { RateLimitResult } from './types.ts';

/** What a store saw while checking one hit; both stores reduce to this. */
export interface HitObservation {
  allowed: boolean;
  /** Hits in the window after the check (the admitted hit included). */
  used: number;
  /**
   * Allowed: the oldest hit in the window. Throttled: the hit whose departure admits the next
   * one (the (used - limit)-th oldest; the oldest unless the limit was lowered meanwhile).
   */
  anchor: number | undefined;
  now: number;
}

/** Turns a store observation into the public result. */
export function buildHitResult(seen: HitObservation, limit: number, windowMs: number): RateLimitResult {
  const resetAt = (seen.anchor ?? seen.now) + windowMs;
  return {
    allowed: seen.allowed,
    limit,
    remaining: seen.allowed ? Math.max(0, limit - seen.used) : 0,
    used: seen.used,
    resetAt,
    retryAfterMs: seen.allowed ? 0 : Math.max(1, resetAt - seen.now),
  };
}

/** The result handed out by the fail-open policy: admitted, nothing known, flagged degraded. */
export function buildDegradedResult(limit: number, windowMs: number, now: number): RateLimitResult {
  return { allowed: true, limit, remaining: limit, used: 0, resetAt: now + windowMs, retryAfterMs: 0, degraded: true };
}
