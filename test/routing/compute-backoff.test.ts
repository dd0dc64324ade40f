import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.ts';
import { upstreamError } from '../../src/upstream/index.ts';
import { backoffMs, retryDelayMs, routingConfigSchema } from '../../src/routing/index.ts';

const policy = routingConfigSchema.parse({ retry: { baseMs: 100, maxMs: 1000 } }).retry;

describe('backoff', () => {
  it('is full jitter over an exponential ceiling capped at maxMs', () => {
    expect(backoffMs(0, policy, () => 0.99)).toBe(0);
    expect(backoffMs(1, policy, () => 0.5)).toBe(50);
    expect(backoffMs(2, policy, () => 0.5)).toBe(100);
    expect(backoffMs(3, policy, () => 0.999)).toBe(399);
    expect(backoffMs(10, policy, () => 0.999)).toBe(999);
    expect(backoffMs(3, policy, () => 0)).toBe(0);
  });

  it('retries the spec §7 codes and never validation or auth errors', () => {
    for (const code of ['rate_limit_exceeded', 'provider_error', 'provider_timeout', 'provider_unavailable'] as const) {
      expect(retryDelayMs(new GatewayError(code, 'x'), 1, policy, () => 0.5)).toBe(50);
    }
    for (const code of ['bad_request', 'validation_error', 'authentication_error', 'model_not_found', 'request_too_large'] as const) {
      expect(retryDelayMs(new GatewayError(code, 'x'), 1, policy, () => 0.5)).toBeUndefined();
    }
  });

  it('does not retry an upstream that refused the gateway credentials', () => {
    const error = new GatewayError('provider_error', 'x', { details: { upstream_status: 401 } });
    expect(retryDelayMs(error, 1, policy, () => 0.5)).toBeUndefined();
  });

  it("does not retry an upstream whose quota is spent (OpenAI's insufficient_quota): the next candidate is tried instead", () => {
    const spent = upstreamError('oa', { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota.', phase: 'response' });
    expect(spent.code).toBe('rate_limit_exceeded');
    expect(spent.retryable).toBe(true);
    expect(retryDelayMs(spent, 1, policy, () => 0.5)).toBeUndefined();
    const busy = upstreamError('oa', { status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Slow down.', phase: 'response' });
    expect(retryDelayMs(busy, 1, policy, () => 0.5)).toBe(50);
  });

  it('waits at least Retry-After, and gives up when it is longer than maxMs', () => {
    const soon = new GatewayError('rate_limit_exceeded', 'x', { retryAfter: 1 });
    expect(retryDelayMs(soon, 1, policy, () => 0.5)).toBe(1000);
    const late = new GatewayError('rate_limit_exceeded', 'x', { retryAfter: 2 });
    expect(retryDelayMs(late, 1, policy, () => 0.5)).toBeUndefined();
  });

  it('waits what retry-after-ms says, not the whole second Retry-After rounds it up to', () => {
    const precise = upstreamError('oa', { status: 429, message: 'Slow down.', headers: { 'retry-after-ms': '250', 'retry-after': '1' }, phase: 'response' });
    expect(retryDelayMs(precise, 1, policy, () => 0)).toBe(250);
  });
});
