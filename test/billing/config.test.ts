import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';

describe('limits and billing in the gateway config', () => {
  it('fills the spec defaults', () => {
    const config = parseConfig({});
    expect(config.billing).toEqual({ enforce: true, reserveOutputTokens: 4096, reserveWebSearches: 5, ledgerSyncMs: 1000, ledgerGroupMs: 2, unpriced: 'free' });
    expect(config.limits.tiers).toEqual({ free: 10, basic: 50, fellow: 100, pro: 100, enterprise: 1_000_000 });
    expect(config.limits.endpoints['POST /api/auth/login']).toEqual({ rpm: 5, per: 'ip' });
    expect(config.limits.store).toBe('memory');
  });

  it('names the offending key of a typo', () => {
    expect(() => parseConfig({ billing: { enforced: false } })).toThrow(/billing/);
    expect(() => parseConfig({ limits: { defualt: 5 } })).toThrow(/limits/);
    expect(() => parseConfig({ limits: { store: { redis: 'http://x' } } })).toThrow(/limits\.store/);
  });
});
