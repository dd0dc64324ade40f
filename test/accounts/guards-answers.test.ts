// The guards' admit and passLimits are one method each: with an in-process limiter they answer
// at once (no promise on the request path), with a shared one (Redis) a promise; the same cases
// hold for both (issue 21, "speed without twins").
import { afterEach, describe, expect, it } from 'vitest';
import { AccountGuards, type AdmissionRequest } from '../../src/accounts/index.ts';
import { isPromise } from '../../src/util/index.ts';
import { atOnce } from '../helpers/at-once.ts';
import { makeGateway, type TestGateway } from './make-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface LimiterCase {
  name: string;
  /** `limits.store` of the config. */
  store: unknown;
  /** Whether the guards answer at once (in-process limiter) or with a promise (shared). */
  atOnce: boolean;
}

const limiters: LimiterCase[] = [
  { name: 'in-process limiter', store: 'memory', atOnce: true },
  { name: 'Redis limiter', store: { redis: REDIS_URL, prefix: `gw:rl:test:guards:${process.pid}:${Date.now()}:` }, atOnce: false },
];

for (const limiter of limiters) {
  describe(`AccountGuards with an ${limiter.name}`, () => {
    let gw: TestGateway | undefined;
    // Both stores count hits at the guards' clock when it is not the system's; moved by hand here.
    let now = Date.UTC(2026, 2, 10, 9, 0, 0);
    const clock = { now: () => now };
    afterEach(async () => {
      await gw?.close();
      gw = undefined;
    });

    /** A gateway whose keys may hold `slots` requests at once; a request asks admission for 8 output tokens. */
    async function setUp(slots: number, rpm?: number) {
      gw = await makeGateway({ limits: { store: limiter.store, concurrency: { tiers: { pro: slots } } } }, { clock });
      const guards = gw.gateway.deps.guards;
      if (!(guards instanceof AccountGuards)) throw new Error('account guards not wired');
      const { accountId } = await gw.account({ rpm });
      const account = gw.gateway.deps.store.cache.account(accountId)!;
      const [key] = await gw.gateway.deps.store.keys.list(accountId);
      let n = 0;
      const request = (): AdmissionRequest => ({
        auth: { account, key: key! },
        method: 'POST',
        route: '/v1/chat/completions',
        clientAddress: '::1',
        model: 'mock/echo',
        estimatedInputTokens: 4,
        maxOutputTokens: 8,
        requestId: `guards-${++n}`,
      });
      return { guards, request };
    }

    /** The answer, checked to come at once or later as this limiter should. */
    function answered<T>(answer: T | Promise<T>): T | Promise<T> {
      expect(isPromise(answer)).toBe(!limiter.atOnce);
      return answer;
    }

    it('admits through the one admit, at once or later as the limiter answers, with the rate-limit headers', async () => {
      const { guards, request } = await setUp(2);
      const admission = await answered(guards.admit(request()));
      expect(admission.headers).toMatchObject({ 'X-RateLimit-Resource': 'user', 'X-Concurrency-Remaining': '1' });
      await admission.settle(null);
    });

    it('refuses a throttled request with a rejected 429 (never a throw), and gives its slot back', async () => {
      const { guards, request } = await setUp(1, 1);
      const first = await guards.admit(request());
      await first.settle(null);
      let refused: Promise<unknown> | undefined;
      expect(() => (refused = Promise.resolve(guards.admit(request())))).not.toThrow();
      await expect(refused).rejects.toMatchObject({ code: 'rate_limit_exceeded', status: 429, details: { limit: 1 } });
      // A minute on, the rate limit admits again, and the one slot is free: the throttled request gave it back.
      now += 60_000;
      const next = await answered(guards.admit(request()));
      expect(next.headers['X-Concurrency-Remaining']).toBe('0');
      await next.settle(null);
    });

    it('refuses past the concurrency cap and admits again once a slot is settled', async () => {
      const { guards, request } = await setUp(1);
      const held = await guards.admit(request());
      await expect(Promise.resolve(guards.admit(request()))).rejects.toMatchObject({ code: 'rate_limit_exceeded', details: { max_concurrency: 1 } });
      await held.settle(null);
      const again = await answered(guards.admit(request()));
      expect(again.headers['X-Concurrency-Remaining']).toBe('0');
      await again.settle(null);
    });

    it('passLimits answers at once or later the same way; its admission (then at once: no limiter asked) takes the slot over, release gives it back', async () => {
      const { guards, request } = await setUp(1);
      const limits = await answered(guards.passLimits(request()));
      const admission = atOnce(guards.admit({ ...request(), limits }));
      expect(admission.headers['X-Concurrency-Remaining']).toBe('0');
      await admission.settle(null);
      const passed = await guards.passLimits(request());
      passed.release();
      const next = await guards.admit(request());
      await next.settle(null);
    });

    it("a media job's admission (untilBilled: nobody waits for it) is not live traffic, so batch lines do not yield to it while the job runs", async () => {
      const { guards, request } = await setUp(4);
      const job = await guards.admit({ ...request(), route: '/v1/videos', untilBilled: true });
      expect(guards.liveInFlight()).toBe(0);
      const live = await guards.admit(request());
      expect(guards.liveInFlight()).toBe(1);
      await live.settle(null);
      await job.settle(null);
      expect(guards.liveInFlight()).toBe(0);
    });
  });
}
