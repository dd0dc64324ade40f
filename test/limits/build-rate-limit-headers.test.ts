import { describe, expect, it } from 'vitest';

import { buildErrorEnvelope } from '../../src/errors/index.ts';
import {
  buildRateLimitHeaders,
  concurrencyExceededError,
  priorityForTier,
  rateLimitExceededError,
  type RateLimitResult,
} from '../../src/limits/index.ts';

const allowed: RateLimitResult = { allowed: true, limit: 60, remaining: 41, used: 19, resetAt: 1_700_000_030_250, retryAfterMs: 0 };
const throttled: RateLimitResult = { allowed: false, limit: 10, remaining: 0, used: 10, resetAt: 1_700_000_012_001, retryAfterMs: 2_001 };

describe('buildRateLimitHeaders', () => {
  it('emits the spec §8.1 headers for an admitted request', () => {
    expect(buildRateLimitHeaders({ result: allowed, scope: 'user', tier: 'pro', concurrencyRemaining: 3 })).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '41',
      'X-RateLimit-Reset': '1700000031',
      'X-RateLimit-Used': '19',
      'X-RateLimit-Resource': 'user',
      'X-Request-Priority': '3',
      'X-Concurrency-Remaining': '3',
    });
  });

  it('adds Retry-After (whole seconds, rounded up) when throttled', () => {
    const headers = buildRateLimitHeaders({ result: throttled, scope: 'api_key', tier: 'free' });
    expect(headers['Retry-After']).toBe('3');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['X-RateLimit-Resource']).toBe('api_key');
    expect(buildRateLimitHeaders({ result: { ...throttled, retryAfterMs: 1 } })['Retry-After']).toBe('1');
  });

  it('sends only priority and concurrency when the request was not limited', () => {
    expect(buildRateLimitHeaders({ tier: 'enterprise', concurrencyRemaining: -2 })).toEqual({ 'X-Request-Priority': '4', 'X-Concurrency-Remaining': '0' });
  });

  it.each([
    ['free', 1],
    ['basic', 2],
    ['fellow', 2],
    ['pro', 3],
    ['enterprise', 4],
    [undefined, 1],
  ] as const)('priority of %s is %i', (tier, priority) => {
    expect(priorityForTier(tier)).toBe(priority);
  });
});

describe('rateLimitExceededError', () => {
  it('is a 429 rate_limit_exceeded with retry_after and the headers', () => {
    const error = rateLimitExceededError(throttled, { scope: 'user', windowMs: 60_000 }, 'free');
    // retry-after-ms (the SDKs read it first) keeps the limiter's 2,001 ms.
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryAfter: 3, retryAfterMs: 2_001, retryable: true });
    expect(error.message).toBe('Rate limit of 10 requests per minute exceeded; retry in 3 s.');
    expect(error.headers).toMatchObject({ 'Retry-After': '3', 'X-RateLimit-Limit': '10', 'X-RateLimit-Resource': 'user', 'X-Request-Priority': '1' });
    const envelope = buildErrorEnvelope(error, { requestId: 'req_1', correlationId: 'cor_1' });
    expect(envelope.error).toMatchObject({ code: 'rate_limit_exceeded', retry_after: 3 });
  });

  it('concurrency refusals say so and report no free slot', () => {
    const error = concurrencyExceededError(4, 'basic');
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryAfter: 1 });
    expect(error.headers).toEqual({ 'Retry-After': '1', 'X-Request-Priority': '2', 'X-Concurrency-Remaining': '0' });
  });
});
