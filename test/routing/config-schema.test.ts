import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/index.ts';
import { routingConfigSchema } from '../../src/routing/index.ts';

describe('routing config', () => {
  it('has documented defaults', () => {
    expect(routingConfigSchema.parse({})).toEqual({
      strategy: 'priority',
      models: {},
      breaker: { failureThreshold: 5, cooldownMs: 30_000 },
      retry: { attempts: 3, baseMs: 250, maxMs: 5_000, budgetMs: 30_000 },
      latency: { alpha: 0.3 },
      sticky: { enabled: true, keys: ['x-session-id', 'prompt_cache_key', 'metadata.user_id'], ttlMs: 3_600_000, maxSessions: 100_000, hedge: false },
      fallbackDiscount: 0.1,
      events: 'opt-in',
    });
  });

  it('is the root config section, with per-model strategies and chains', () => {
    const config = configSchema.parse({
      routing: { strategy: 'latency', models: { m1: { strategy: 'price', fallbacks: ['b/m2', 'm3'], fallbackDiscount: 0.25 } }, breaker: { failureThreshold: 2 } },
    });
    expect(config.routing.strategy).toBe('latency');
    expect(config.routing.models.m1).toEqual({ strategy: 'price', fallbacks: ['b/m2', 'm3'], fallbackDiscount: 0.25 });
    expect(config.routing.breaker).toEqual({ failureThreshold: 2, cooldownMs: 30_000 });
  });

  it('rejects typos and out-of-range values', () => {
    expect(routingConfigSchema.safeParse({ stratgey: 'price' }).success).toBe(false);
    expect(routingConfigSchema.safeParse({ strategy: 'cheapest' }).success).toBe(false);
    expect(routingConfigSchema.safeParse({ fallbackDiscount: 1.5 }).success).toBe(false);
    expect(routingConfigSchema.safeParse({ retry: { attempts: 0 } }).success).toBe(false);
    expect(routingConfigSchema.safeParse({ models: { m: { fallback: ['x'] } } }).success).toBe(false);
  });
});
