import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/routing/index.ts';

function breaker(failureThreshold = 3, cooldownMs = 1000) {
  let now = 0;
  const b = new CircuitBreaker({ failureThreshold, cooldownMs, now: () => now });
  return { b, advance: (ms: number) => (now += ms) };
}

describe('CircuitBreaker', () => {
  it('stays closed below the threshold and opens at it', () => {
    const { b } = breaker(3);
    b.recordFailure('p/m');
    b.recordFailure('p/m');
    expect(b.state('p/m')).toBe('closed');
    expect(b.allow('p/m')).toBe(true);
    b.recordFailure('p/m');
    expect(b.state('p/m')).toBe('open');
    expect(b.allow('p/m')).toBe(false);
    expect(b.state('other/m')).toBe('closed');
  });

  it('counts consecutive failures only: a success resets the count', () => {
    const { b } = breaker(3);
    b.recordFailure('p/m');
    b.recordFailure('p/m');
    b.recordSuccess('p/m');
    b.recordFailure('p/m');
    b.recordFailure('p/m');
    expect(b.state('p/m')).toBe('closed');
    expect(b.failures('p/m')).toBe(2);
  });

  it('half-opens after the cooldown and lets exactly one probe through', () => {
    const { b, advance } = breaker(1, 1000);
    b.recordFailure('p/m');
    advance(999);
    expect(b.allow('p/m')).toBe(false);
    advance(1);
    expect(b.state('p/m')).toBe('half-open');
    expect(b.allow('p/m')).toBe(true);
    expect(b.allow('p/m')).toBe(false); // the probe is in flight
  });

  it('closes on a successful probe and reopens for a full cooldown on a failed one', () => {
    const { b, advance } = breaker(2, 1000);
    b.recordFailure('p/m');
    b.recordFailure('p/m');
    advance(1000);
    expect(b.allow('p/m')).toBe(true);
    b.recordFailure('p/m');
    expect(b.state('p/m')).toBe('open');
    advance(999);
    expect(b.allow('p/m')).toBe(false);
    advance(1);
    expect(b.allow('p/m')).toBe(true);
    b.recordSuccess('p/m');
    expect(b.state('p/m')).toBe('closed');
    expect(b.allow('p/m')).toBe(true);
  });

  it('releases a probe whose outcome says nothing (client gone)', () => {
    const { b, advance } = breaker(1, 10);
    b.recordFailure('p/m');
    advance(10);
    expect(b.allow('p/m')).toBe(true);
    b.release('p/m');
    expect(b.allow('p/m')).toBe(true);
  });

  it('names the least recently failed key (never-failed first)', () => {
    const { b, advance } = breaker(1);
    b.recordFailure('a/m');
    advance(5);
    b.recordFailure('b/m');
    expect(b.leastRecentlyFailed(['b/m', 'a/m'])).toBe('a/m');
    expect(b.leastRecentlyFailed(['b/m', 'c/m', 'a/m'])).toBe('c/m');
  });

  it('snapshots failing circuits with their last error class, and tells listeners of each failure', () => {
    const { b, advance } = breaker(2, 1000);
    const heard: Array<[string, string | undefined, string, number]> = [];
    const stop = b.onFailure((key, cause, state, failures) => heard.push([key, cause?.code, state, failures]));
    b.recordFailure('p/m', { code: 'provider_timeout', status: 504 });
    b.recordFailure('p/m', { code: 'provider_unavailable', status: 503, message: 'down' });
    b.recordFailure('q/m');
    expect(heard).toEqual([
      ['p/m', 'provider_timeout', 'closed', 1],
      ['p/m', 'provider_unavailable', 'open', 2],
      ['q/m', undefined, 'closed', 1],
    ]);
    expect(b.snapshot()).toEqual([
      { key: 'p/m', state: 'open', failures: 2, lastFailureAt: 0, lastError: { code: 'provider_unavailable', status: 503 } },
      { key: 'q/m', state: 'closed', failures: 1, lastFailureAt: 0 },
    ]);
    advance(1000);
    expect(b.snapshot()[0].state).toBe('half-open');
    b.recordSuccess('p/m');
    expect(b.snapshot().map((c) => c.key)).toEqual(['q/m']);
    stop();
    b.recordFailure('q/m');
    expect(heard).toHaveLength(3);
  });
});
