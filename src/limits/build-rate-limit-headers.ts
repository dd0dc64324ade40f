import { GatewayError } from '../errors/index.ts';
import type { LimitScope, RateLimitResult, ResolvedLimit, Tier } from './types.ts';

export interface RateLimitHeaderInput {
  /** The window check; omitted (or null) when the request was exempt or unlimited. */
  result?: RateLimitResult | null;
  scope?: LimitScope;
  /** The caller's tier, for X-Request-Priority. */
  tier?: Tier;
  /** Free in-flight slots after this request took one, for X-Concurrency-Remaining. */
  concurrencyRemaining?: number;
}

const PRIORITY: Record<Tier, 1 | 2 | 3 | 4> = { free: 1, basic: 2, fellow: 2, pro: 3, enterprise: 4 };

/** X-Request-Priority by tier: 1 low (free, or unknown/anonymous), 2 normal, 3 high, 4 critical. */
export function priorityForTier(tier: Tier | undefined): 1 | 2 | 3 | 4 {
  return tier ? PRIORITY[tier] : 1;
}

/** Retry-After in whole seconds, rounded up and at least 1. */
export function retryAfterSeconds(result: RateLimitResult): number {
  return Math.max(1, Math.ceil(result.retryAfterMs / 1000));
}

/** The response headers of spec §8.1 for one request (Retry-After only when throttled). */
export function buildRateLimitHeaders(input: RateLimitHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {};
  const { result } = input;
  if (result) {
    headers['X-RateLimit-Limit'] = String(result.limit);
    headers['X-RateLimit-Remaining'] = String(result.remaining);
    // Unix seconds when the oldest counted request leaves the window; rounded up so a client
    // waiting until then is never early.
    headers['X-RateLimit-Reset'] = String(Math.ceil(result.resetAt / 1000));
    headers['X-RateLimit-Used'] = String(result.used);
    if (input.scope) headers['X-RateLimit-Resource'] = input.scope;
    if (!result.allowed) headers['Retry-After'] = String(retryAfterSeconds(result));
  }
  headers['X-Request-Priority'] = String(priorityForTier(input.tier));
  if (input.concurrencyRemaining !== undefined) headers['X-Concurrency-Remaining'] = String(Math.max(0, input.concurrencyRemaining));
  return headers;
}

/** The spec §8.1 throttled answer: 429 rate_limit_exceeded with retry_after and the headers above. */
export function rateLimitExceededError(result: RateLimitResult, limit: Pick<ResolvedLimit, 'scope' | 'windowMs'>, tier?: Tier): GatewayError {
  const seconds = retryAfterSeconds(result);
  const per = limit.windowMs === 60_000 ? 'minute' : `${limit.windowMs / 1000} s`;
  return new GatewayError('rate_limit_exceeded', `Rate limit of ${result.limit} requests per ${per} exceeded; retry in ${seconds} s.`, {
    retryAfter: seconds,
    retryAfterMs: result.retryAfterMs,
    details: { limit: result.limit, scope: limit.scope },
    headers: buildRateLimitHeaders({ result, scope: limit.scope, tier }),
  });
}

/** The answer when every concurrency slot is held: 429 rate_limit_exceeded, X-Concurrency-Remaining 0. */
export function concurrencyExceededError(max: number, tier?: Tier): GatewayError {
  return new GatewayError('rate_limit_exceeded', `Too many concurrent requests (at most ${max} in flight); retry when one finishes.`, {
    retryAfter: 1,
    details: { max_concurrency: max },
    headers: { 'Retry-After': '1', 'X-Request-Priority': String(priorityForTier(tier)), 'X-Concurrency-Remaining': '0' },
  });
}
