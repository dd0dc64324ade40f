import { describe, expect, it } from 'vitest';

import { createRateLimitStore, limitsStoreSchema, MemoryRateLimitStore, rateLimitConfigSchema, RedisRateLimitStore } from '../../src/limits/index.ts';

describe('rateLimitConfigSchema', () => {
  it('defaults every number to spec §8.1', () => {
    const config = rateLimitConfigSchema.parse(undefined);
    expect(config).toMatchObject({
      default: 600,
      windowMs: 60_000,
      tiers: { free: 10, basic: 50, fellow: 100, pro: 100, enterprise: 1_000_000 },
      endpoints: {
        'POST /v1/chat/completions': { rpm: 60, per: 'caller' },
        'POST /v1/files': { rpm: 20, per: 'caller' },
        'POST /api/auth/login': { rpm: 5, per: 'ip' },
      },
      concurrency: { default: 10, ttlMs: 600_000, tiers: { free: 2, basic: 5, fellow: 10, pro: 20, enterprise: 1_000 } },
      store: 'memory',
    });
    expect(rateLimitConfigSchema.parse({})).toEqual(config);
  });

  it('merges endpoint overrides into the defaults; null removes one', () => {
    const { endpoints } = rateLimitConfigSchema.parse({ endpoints: { 'POST /v1/files': 99, 'POST /api/auth/login': null } });
    expect(endpoints).toEqual({ 'POST /v1/chat/completions': { rpm: 60, per: 'caller' }, 'POST /v1/files': { rpm: 99, per: 'caller' } });
  });

  it.each([
    [{ default: 0 }],
    [{ default: 1.5 }],
    [{ tiers: { free: -1 } }],
    [{ tiers: { gold: 5 } }],
    [{ endpoints: { '/v1/files': 5 } }],
    [{ endpoints: { 'post /v1/files': 5 } }],
    [{ endpoints: { 'POST /v1/files': { rpm: 5, per: 'planet' } } }],
    [{ concurrency: { ttlMs: 0 } }],
    [{ unknown: true }],
  ])('rejects %j', (input) => {
    expect(rateLimitConfigSchema.safeParse(input).success).toBe(false);
  });
});

describe('limitsStoreSchema', () => {
  it('accepts memory and Redis, filling Redis defaults', () => {
    expect(limitsStoreSchema.parse(undefined)).toBe('memory');
    expect(limitsStoreSchema.parse({ redis: 'redis://127.0.0.1:6379' })).toEqual({
      redis: 'redis://127.0.0.1:6379',
      prefix: 'gw:rl:',
      onError: 'open',
      commandTimeoutMs: 300,
    });
    expect(limitsStoreSchema.parse({ redis: 'rediss://cache.internal:6380/2', onError: 'closed', prefix: 'x:' })).toMatchObject({ onError: 'closed', prefix: 'x:' });
  });

  it.each([[{ redis: 'http://x' }], [{ redis: 'redis://x', onError: 'maybe' }], ['redis'], [{ redis: 'redis://x', extra: 1 }]])('rejects %j', (input) => {
    expect(limitsStoreSchema.safeParse(input).success).toBe(false);
  });

  it('says what it expects when the redis address is missing (an env variable not set), not just "Invalid input"', () => {
    const result = limitsStoreSchema.safeParse({ redis: undefined });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual(["expected 'memory' or { redis: 'redis://…' } (no redis address: is its env variable set?)"]);
    // A wrong address still gets its own message.
    expect(limitsStoreSchema.safeParse({ redis: 'http://x' }).error?.issues.map((i) => i.message)).toEqual(['a redis:// or rediss:// address']);
  });
});

describe('createRateLimitStore', () => {
  it('builds a memory store by default', async () => {
    const store = createRateLimitStore();
    expect(store).toBeInstanceOf(MemoryRateLimitStore);
    expect(await store.hit('k', 1, 1_000, 0)).toMatchObject({ allowed: true });
    await store.close();
  });

  it('builds a Redis store from limits.store', async () => {
    const store = createRateLimitStore(
      { store: { redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `gw:rl:test:factory:${process.pid}:` } },
      { log: () => {} },
    );
    expect(store).toBeInstanceOf(RedisRateLimitStore);
    expect(await (store as RedisRateLimitStore).ready(5_000)).toBe(true);
    const key = `k${Date.now()}`;
    expect(await store.hit(key, 1, 1_000)).toMatchObject({ allowed: true, used: 1 });
    expect(await store.hit(key, 1, 1_000)).toMatchObject({ allowed: false });
    await store.close();
  });

  it('rejects an invalid store config', () => {
    expect(() => createRateLimitStore({ store: { redis: 'nope' } })).toThrow();
  });
});
