import { afterEach, describe, expect, it } from 'vitest';
import { CredentialLockout } from '../../src/accounts/credential-lockout.ts';
import { MemoryRateLimitStore } from '../../src/limits/index.ts';

let store: MemoryRateLimitStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function lockout(max: number | null) {
  let now = 1_000_000;
  store = new MemoryRateLimitStore({ clock: () => now });
  const guard = new CredentialLockout({ limiter: store, max, windowMs: 60_000, now: () => now });
  return { guard, later: (ms: number) => (now += ms) };
}

describe('CredentialLockout', () => {
  it('locks an address out on the failure past the budget, until its oldest failure leaves the window', () => {
    const { guard, later } = lockout(2);
    expect(guard.failed('203.0.113.5')).toBeUndefined();
    later(10_000);
    expect(guard.failed('203.0.113.5')).toBeUndefined();
    expect(guard.refusal('203.0.113.5')).toBeUndefined();
    const over = guard.failed('203.0.113.5');
    expect(over).toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryAfter: 50, details: { limit: 2, scope: 'ip', setting: 'limits.failedCredentials' } });
    expect(guard.refusal('203.0.113.5')).toMatchObject({ code: 'rate_limit_exceeded', retryAfter: 50 });
    // IPv4-mapped IPv6 is the same address; another address is not held.
    expect(guard.refusal('::ffff:203.0.113.5')).toBeDefined();
    expect(guard.refusal('203.0.113.6')).toBeUndefined();
    later(49_000);
    expect(guard.refusal('203.0.113.5')?.retryAfter).toBe(1);
    later(1_000);
    expect(guard.refusal('203.0.113.5')).toBeUndefined();
    // One failure has left the window: one more is judged, the next locks again.
    expect(guard.failed('203.0.113.5')).toBeUndefined();
    expect(guard.failed('203.0.113.5')).toBeDefined();
  });

  it('counts nothing when limits.failedCredentials is null', () => {
    const { guard } = lockout(null);
    for (let i = 0; i < 100; i++) expect(guard.failed('203.0.113.5')).toBeUndefined();
    expect(guard.refusal('203.0.113.5')).toBeUndefined();
  });
});
