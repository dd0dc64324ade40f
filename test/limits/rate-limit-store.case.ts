import { afterEach, describe, expect, it } from 'vitest';

import type { RateLimitStore } from '../../src/limits/index.ts';
import { isPromise } from '../../src/util/index.ts';

/**
 * Registers the behaviour every RateLimitStore must show; each test gets a fresh store.
 * `answers`: an in-process store answers hit, acquire and release at once (no promise), a
 * shared one with a promise; every other case runs the same through the one method.
 */
export function describeRateLimitStore(name: string, makeStore: () => RateLimitStore | Promise<RateLimitStore>, answers: 'at once' | 'later'): void {
  describe(`${name}: RateLimitStore contract`, () => {
    let open: RateLimitStore[] = [];
    let seq = 0;
    const fresh = async () => {
      const store = await makeStore();
      open.push(store);
      return store;
    };
    // Keys differ per test so stores sharing a backend never see each other's hits.
    const key = (label: string) => `${label}:${++seq}:${Math.random().toString(36).slice(2)}`;

    afterEach(async () => {
      await Promise.all(open.map((store) => store.close()));
      open = [];
    });

    it(`answers hit, acquire and release ${answers}`, async () => {
      const store = await fresh();
      const k = key('answers');
      const hit = store.hit(k, 2, 60_000);
      const lease = store.acquire(k, 2, 60_000);
      expect(isPromise(hit)).toBe(answers === 'later');
      expect(isPromise(lease)).toBe(answers === 'later');
      expect(await hit).toMatchObject({ allowed: true, used: 1 });
      const held = await lease;
      expect(held).toMatchObject({ remaining: 1 });
      const released = held!.release();
      expect(isPromise(released)).toBe(answers === 'later');
      await released;
      expect(await store.acquire(k, 2, 60_000)).toMatchObject({ remaining: 1 });
    });

    it('admits exactly N of N+k hits in one window', async () => {
      const store = await fresh();
      const k = key('n-of-n');
      const t0 = 1_000_000;
      const results = [];
      for (let i = 0; i < 13; i++) results.push(await store.hit(k, 10, 60_000, t0 + i));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
      expect(results.slice(0, 10).every((r) => r.allowed)).toBe(true);
      expect(results.slice(10).every((r) => !r.allowed)).toBe(true);
    });

    it('admits exactly N of many concurrent hits', async () => {
      const store = await fresh();
      const k = key('concurrent');
      const results = await Promise.all(Array.from({ length: 60 }, () => store.hit(k, 25, 60_000)));
      expect(results.filter((r) => r.allowed)).toHaveLength(25);
      expect(results.some((r) => r.degraded)).toBe(false);
    });

    it('reports used, remaining and reset from the oldest hit', async () => {
      const store = await fresh();
      const k = key('values');
      const t0 = 5_000_000;
      expect(await store.hit(k, 3, 1_000, t0)).toEqual({ allowed: true, limit: 3, remaining: 2, used: 1, resetAt: t0 + 1_000, retryAfterMs: 0 });
      expect(await store.hit(k, 3, 1_000, t0 + 100)).toMatchObject({ allowed: true, remaining: 1, used: 2, resetAt: t0 + 1_000 });
      expect(await store.hit(k, 3, 1_000, t0 + 200)).toMatchObject({ allowed: true, remaining: 0, used: 3, resetAt: t0 + 1_000 });
      expect(await store.hit(k, 3, 1_000, t0 + 400)).toEqual({
        allowed: false,
        limit: 3,
        remaining: 0,
        used: 3,
        resetAt: t0 + 1_000,
        retryAfterMs: 600,
      });
    });

    it('slides: a hit is admitted exactly when the oldest leaves the window', async () => {
      const store = await fresh();
      const k = key('slide');
      const t0 = 9_000_000;
      const w = 1_000;
      await store.hit(k, 3, w, t0);
      await store.hit(k, 3, w, t0 + 10);
      await store.hit(k, 3, w, t0 + 20);
      const early = await store.hit(k, 3, w, t0 + w - 1);
      expect(early).toMatchObject({ allowed: false, retryAfterMs: 1, resetAt: t0 + w });
      expect(await store.hit(k, 3, w, t0 + w)).toMatchObject({ allowed: true, used: 3, remaining: 0, resetAt: t0 + 10 + w });
      // The throttled hit at t0+w-1 did not count: the next slot opens when t0+10 leaves.
      expect(await store.hit(k, 3, w, t0 + 10 + w - 1)).toMatchObject({ allowed: false, retryAfterMs: 1 });
      expect(await store.hit(k, 3, w, t0 + 10 + w)).toMatchObject({ allowed: true });
      // Long after, the whole window is empty again.
      expect(await store.hit(k, 3, w, t0 + 10 * w)).toMatchObject({ allowed: true, used: 1, remaining: 2 });
    });

    it('keeps keys apart', async () => {
      const store = await fresh();
      const a = key('a');
      const b = key('b');
      expect(await store.hit(a, 1, 60_000, 1_000)).toMatchObject({ allowed: true });
      expect(await store.hit(a, 1, 60_000, 1_001)).toMatchObject({ allowed: false });
      expect(await store.hit(b, 1, 60_000, 1_002)).toMatchObject({ allowed: true });
    });

    it('waits for the right hit when the limit is lowered under existing traffic', async () => {
      const store = await fresh();
      const k = key('lowered');
      const t0 = 2_000_000;
      for (let i = 0; i < 5; i++) await store.hit(k, 5, 1_000, t0 + i * 100);
      // 5 hits in the window, new limit 2: four must leave (fewer than 2 may remain), so the
      // next hit waits for the one at t0+300, not for the oldest.
      expect(await store.hit(k, 2, 1_000, t0 + 500)).toMatchObject({ allowed: false, used: 5, remaining: 0, resetAt: t0 + 1_300, retryAfterMs: 800 });
      expect(await store.hit(k, 2, 1_000, t0 + 1_299)).toMatchObject({ allowed: false });
      expect(await store.hit(k, 2, 1_000, t0 + 1_300)).toMatchObject({ allowed: true, used: 2 });
    });

    it('matches a naive sliding log over a random hit sequence', async () => {
      const store = await fresh();
      const k = key('model');
      const limit = 7;
      const w = 500;
      const admitted: number[] = [];
      let now = 3_000_000;
      let seed = 42;
      const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
      for (let i = 0; i < 400; i++) {
        now += Math.floor(rand() * 60);
        const live = admitted.filter((t) => t > now - w);
        const expectAllowed = live.length < limit;
        if (expectAllowed) admitted.push(now);
        const r = await store.hit(k, limit, w, now);
        expect(r.allowed, `hit ${i} at ${now}`).toBe(expectAllowed);
        expect(r.used).toBe(expectAllowed ? live.length + 1 : live.length);
        expect(r.resetAt).toBe((expectAllowed ? [...live, now][0] : live[live.length - limit]) + w);
      }
    });

    it('uses its own clock when no time is given', async () => {
      const store = await fresh();
      const k = key('clock');
      const before = Date.now();
      const r = await store.hit(k, 2, 10_000);
      const after = Date.now();
      expect(r).toMatchObject({ allowed: true, used: 1, remaining: 1 });
      // Same machine: the store clock (local or Redis TIME) is within a few ms of ours.
      expect(r.resetAt).toBeGreaterThanOrEqual(before + 10_000 - 50);
      expect(r.resetAt).toBeLessThanOrEqual(after + 10_000 + 50);
    });

    it('hands out at most max concurrency slots and frees them on release', async () => {
      const store = await fresh();
      const k = key('slots');
      const first = await store.acquire(k, 2, 60_000);
      const second = await store.acquire(k, 2, 60_000);
      expect(first?.remaining).toBe(1);
      expect(second?.remaining).toBe(0);
      expect(await store.acquire(k, 2, 60_000)).toBeNull();
      await first?.release();
      await first?.release(); // idempotent: must not free a second slot
      const third = await store.acquire(k, 2, 60_000);
      expect(third?.remaining).toBe(0);
      expect(await store.acquire(k, 2, 60_000)).toBeNull();
      await second?.release();
      await third?.release();
      expect((await store.acquire(k, 2, 60_000))?.remaining).toBe(1);
    });

    it('grants exactly max of many concurrent acquires', async () => {
      const store = await fresh();
      const k = key('slots-race');
      const leases = await Promise.all(Array.from({ length: 30 }, () => store.acquire(k, 4, 60_000)));
      expect(leases.filter((l) => l !== null)).toHaveLength(4);
      expect(new Set(leases.filter((l) => l !== null).map((l) => l?.id)).size).toBe(4);
    });

    it('expires a slot that is never released', async () => {
      const store = await fresh();
      const k = key('slot-ttl');
      // 500 ms: the second acquire must come before the first slot expires (two round trips,
      // which a loaded machine can stretch past the 80 ms this used).
      expect(await store.acquire(k, 1, 500)).not.toBeNull();
      expect(await store.acquire(k, 1, 500)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 650));
      const again = await store.acquire(k, 1, 500);
      expect(again).not.toBeNull();
      expect(again?.remaining).toBe(0);
    });
  });
}
