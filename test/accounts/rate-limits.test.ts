import { afterEach, describe, expect, it } from 'vitest';
import { get, makeGateway, post, type TestGateway } from './make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const chat = (key: string, extra: Record<string, unknown> = {}) => post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8, ...extra }, key);

interface ErrorBody {
  error: { code: string; message: string; retry_after?: number; details?: Record<string, unknown> };
}

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 2, 10, 9, 0, 0)) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms), advance: (ms: number) => (t += ms) };
}

describe('rate-limit headers (spec §8.1)', () => {
  it('sends every header on an AI-generation request', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ tier: 'pro' });
    const res = await gw.fetch('/v1/chat/completions', chat(key));
    expect(res.status).toBe(200);
    const h = res.headers;
    expect(h.get('x-ratelimit-limit')).toBe('100');
    expect(h.get('x-ratelimit-remaining')).toBe('99');
    expect(h.get('x-ratelimit-used')).toBe('1');
    expect(h.get('x-ratelimit-resource')).toBe('user');
    const reset = Number(h.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 59);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
    expect(h.get('x-request-priority')).toBe('3');
    expect(h.get('x-concurrency-remaining')).toBe('19');
  });

  it('sets X-Request-Priority by tier', async () => {
    gw = await makeGateway();
    const expected = { free: '1', basic: '2', fellow: '2', pro: '3', enterprise: '4' } as const;
    for (const [tier, priority] of Object.entries(expected)) {
      const { key } = await gw.account({ tier: tier as keyof typeof expected });
      const res = await gw.fetch('/v1/chat/completions', chat(key));
      expect(res.headers.get('x-request-priority'), tier).toBe(priority);
    }
  });

  it('sends the headers on refused answers too (402, 403)', async () => {
    gw = await makeGateway({ providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }, { id: 'vip', minTier: 'enterprise' }] } } });
    const { key } = await gw.account({ tier: 'basic', credits: 1 });
    const poor = await gw.fetch('/v1/chat/completions', chat(key));
    expect(poor.status).toBe(402);
    expect(poor.headers.get('x-ratelimit-limit')).toBe('50');
    expect(poor.headers.get('x-ratelimit-used')).toBe('1');
    expect(poor.headers.get('x-request-priority')).toBe('2');
    const vip = await gw.fetch('/v1/chat/completions', chat(key, { model: 'mock/vip' }));
    expect(vip.status).toBe(403);
    expect(vip.headers.get('x-ratelimit-used')).toBe('2');
  });

  it('sends X-Concurrency-Remaining on a 429 of the rate limit too: the refused request holds no slot', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ tier: 'free' });
    for (let i = 0; i < 10; i++) expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    const throttled = await gw.fetch('/v1/chat/completions', chat(key));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('x-ratelimit-limit')).toBe('10');
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    // Free tier: 2 slots, none in flight.
    expect(throttled.headers.get('x-concurrency-remaining')).toBe('2');
  });
});

describe('resolution order (spec §8.1)', () => {
  it('(1) a key limit wins over the tier, per API key', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ tier: 'pro', rpm: 2 });
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    const third = await gw.fetch('/v1/chat/completions', chat(key));
    expect(third.status).toBe(429);
    expect(third.headers.get('x-ratelimit-limit')).toBe('2');
    expect(third.headers.get('x-ratelimit-resource')).toBe('api_key');
  });

  it('(1) a key limit applies on other endpoints too', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ rpm: 1 });
    expect((await gw.fetch('/v1/credits', get(key))).status).toBe(200);
    const second = await gw.fetch('/v1/key', get(key));
    expect(second.status).toBe(429);
    expect(second.headers.get('x-ratelimit-resource')).toBe('api_key');
  });

  it('(2) the tier limit wins over the endpoint limit on AI-generation endpoints', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ tier: 'free' });
    const first = await gw.fetch('/v1/chat/completions', chat(key));
    expect(first.headers.get('x-ratelimit-limit')).toBe('10'); // not the endpoint's 60
    for (let i = 1; i < 10; i++) expect((await gw.fetch('/v1/messages', post({ model: 'mock/echo', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }, key))).status).toBe(200);
    const eleventh = await gw.fetch('/v1/responses', post({ model: 'mock/echo', input: 'hi' }, key));
    expect(eleventh.status).toBe(429);
  });

  it('(2) an operator-set account RPM replaces the tier limit; enterprise is effectively unlimited and counted', async () => {
    gw = await makeGateway();
    const custom = await gw.account({ tier: 'enterprise' });
    await gw.gateway.deps.store.accounts.update(custom.accountId, { rpm: 3 });
    const res = await gw.fetch('/v1/chat/completions', chat(custom.key));
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    const open = await gw.account({ tier: 'enterprise' });
    // Past the chat endpoint's 60: the tier row (1,000,000) governs, not the endpoint's.
    for (let i = 0; i < 61; i++) expect((await gw.fetch('/v1/chat/completions', chat(open.key))).status).toBe(200);
    const counted = await gw.fetch('/v1/chat/completions', chat(open.key));
    expect(counted.status).toBe(200);
    expect(counted.headers.get('x-ratelimit-limit')).toBe('1000000');
    expect(counted.headers.get('x-ratelimit-used')).toBe('62');
    expect(counted.headers.get('x-ratelimit-remaining')).toBe('999938');
    expect(counted.headers.get('x-ratelimit-resource')).toBe('user');
    expect(counted.headers.get('x-concurrency-remaining')).toBe('999');
    expect(counted.headers.get('x-request-priority')).toBe('4');
  });

  it('(2) a tier set to null is unlimited: no count, only X-Request-Priority', async () => {
    gw = await makeGateway({ limits: { tiers: { enterprise: null }, concurrency: { tiers: { enterprise: null } } } });
    const open = await gw.account({ tier: 'enterprise' });
    const unlimited = await gw.fetch('/v1/chat/completions', chat(open.key));
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers.get('x-ratelimit-limit')).toBeNull();
    expect(unlimited.headers.get('x-concurrency-remaining')).toBeNull();
    expect(unlimited.headers.get('x-request-priority')).toBe('4');
  });

  it('(3) the endpoint limit applies where no key or tier limit does', async () => {
    gw = await makeGateway({ limits: { endpoints: { 'GET /v1/credits': 2 } } });
    const { key } = await gw.account();
    const first = await gw.fetch('/v1/credits', get(key));
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-resource')).toBe('user');
    await gw.fetch('/v1/credits', get(key));
    expect((await gw.fetch('/v1/credits', get(key))).status).toBe(429);
    // Another endpoint still has its own (default) budget.
    expect((await gw.fetch('/v1/key', get(key))).status).toBe(200);
  });

  it('(3) null lifts a default endpoint limit: POST /v1/files falls back to the global default', async () => {
    const upload = (key: string) => {
      const form = new FormData();
      form.append('purpose', 'user_data');
      form.append('file', new Blob(['hello\n']), 'a.txt');
      return { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form };
    };
    gw = await makeGateway();
    const limited = await gw.account();
    expect((await gw.fetch('/v1/files', upload(limited.key))).headers.get('x-ratelimit-limit')).toBe('20');
    await gw.close();
    gw = await makeGateway({ limits: { endpoints: { 'POST /v1/files': null } } });
    const { key } = await gw.account();
    for (let i = 0; i < 21; i++) {
      const res = await gw.fetch('/v1/files', upload(key));
      expect(res.status, `upload ${i + 1}`).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    }
  });

  it('(4) the global default applies everywhere else', async () => {
    gw = await makeGateway({ limits: { default: 2 } });
    const { key } = await gw.account();
    expect((await gw.fetch('/v1/key', get(key))).headers.get('x-ratelimit-limit')).toBe('2');
    expect((await gw.fetch('/v1/activity', get(key))).status).toBe(200);
    const third = await gw.fetch('/v1/credits', get(key));
    expect(third.status).toBe(429);
  });
});

describe('exempt endpoints', () => {
  it('never limits or counts health and the model list', async () => {
    gw = await makeGateway({ limits: { default: 1 } });
    const { key } = await gw.account({ rpm: 1 });
    for (let i = 0; i < 5; i++) {
      for (const p of ['/health', '/v1/models', '/v1/models/mock/echo']) {
        const res = await gw.fetch(p, get(key));
        expect(res.status, p).toBe(200);
        expect(res.headers.get('x-ratelimit-limit'), p).toBeNull();
      }
    }
    expect((await gw.fetch('/v1/credits', get(key))).status).toBe(200);
  });
});

describe('throttled answer', () => {
  it('is 429 rate_limit_exceeded with Retry-After and error.retry_after, and the window slides', async () => {
    const clock = manualClock();
    const t0 = clock.now();
    gw = await makeGateway({}, { clock });
    const { key } = await gw.account({ rpm: 2 });
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    clock.set(t0 + 10_000);
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    clock.set(t0 + 20_000);
    const refused = await gw.fetch('/v1/chat/completions', chat(key));
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as ErrorBody;
    expect(body.error.code).toBe('rate_limit_exceeded');
    expect(body.error.retry_after).toBe(40);
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String((t0 + 60_000) / 1000));
    expect(refused.headers.get('x-request-priority')).toBe('3');
    // One millisecond before the oldest request leaves the window: still refused.
    clock.set(t0 + 59_999);
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(429);
    // Exactly when it leaves: allowed again, and only one slot opened.
    clock.set(t0 + 60_000);
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(429);
    clock.set(t0 + 70_000);
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
  });
});

describe('concurrency slots', () => {
  it('holds one slot per in-flight request per API key and refuses when all are held', async () => {
    gw = await makeGateway({
      providers: { mock: { plugin: 'mock', latencyMs: 300 } },
      limits: { concurrency: { tiers: { basic: 2 } } },
    });
    const a = await gw.account({ tier: 'basic' });
    const b = await gw.account({ tier: 'basic' });
    const first = gw.fetch('/v1/chat/completions', chat(a.key));
    const second = gw.fetch('/v1/chat/completions', chat(a.key));
    await new Promise((r) => setTimeout(r, 100));
    const third = await gw.fetch('/v1/chat/completions', chat(a.key));
    expect(third.status).toBe(429);
    expect(third.headers.get('x-concurrency-remaining')).toBe('0');
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.headers.get('x-ratelimit-limit')).toBe('50');
    const body = (await third.json()) as ErrorBody;
    expect(body.error.code).toBe('rate_limit_exceeded');
    expect(body.error.details).toMatchObject({ max_concurrency: 2 });
    // Another key has its own slots.
    const other = await gw.fetch('/v1/chat/completions', chat(b.key));
    expect(other.status).toBe(200);
    const remaining = [(await first).headers.get('x-concurrency-remaining'), (await second).headers.get('x-concurrency-remaining')].sort();
    expect(remaining).toEqual(['0', '1']);
    // Settled requests give their slots back.
    await new Promise((r) => setTimeout(r, 20));
    const after = await gw.fetch('/v1/chat/completions', chat(a.key));
    expect(after.status).toBe(200);
    expect(after.headers.get('x-concurrency-remaining')).toBe('1');
  });

  it('gives the slot back when a stream ends and when the upstream fails', async () => {
    gw = await makeGateway({ providers: { mock: { plugin: 'mock', failFirst: 1, failStatus: 400 } }, limits: { concurrency: { tiers: { pro: 1 } } } });
    const { key } = await gw.account();
    const failed = await gw.fetch('/v1/chat/completions', chat(key));
    expect(failed.status).toBeGreaterThanOrEqual(400);
    const streamed = await gw.fetch('/v1/chat/completions', chat(key, { stream: true }));
    expect(streamed.status).toBe(200);
    await streamed.text();
    await new Promise((r) => setTimeout(r, 20));
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
  });
});

describe('slots of refused requests', () => {
  it('a request throttled by the rate limit gives its concurrency slot back at once', async () => {
    const clock = manualClock();
    gw = await makeGateway({ limits: { concurrency: { tiers: { pro: 1 } } } }, { clock });
    const { key } = await gw.account({ rpm: 1 });
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 3; i++) expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(429);
    clock.advance(60_000);
    const next = await gw.fetch('/v1/chat/completions', chat(key));
    expect(next.status).toBe(200);
    expect(next.headers.get('x-concurrency-remaining')).toBe('0');
  });
});

describe('login limit', () => {
  it('allows 5 logins a minute per client address', async () => {
    gw = await makeGateway();
    await gw.account({ email: 'ann@example.test', password: 'correct horse' });
    const attempt = (ip: string, password = 'wrong horse') => gw!.fetch('/api/auth/login', { ...post({ email: 'ann@example.test', password }), ip });
    for (let i = 0; i < 5; i++) {
      const res = await attempt('203.0.113.7');
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-resource')).toBe('ip');
    }
    const sixth = await attempt('203.0.113.7', 'correct horse');
    expect(sixth.status).toBe(429);
    expect(((await sixth.json()) as ErrorBody).error.code).toBe('rate_limit_exceeded');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    const elsewhere = await attempt('203.0.113.8', 'correct horse');
    expect(elsewhere.status).toBe(200);
  });
});

describe('limit store failure', () => {
  const down = (onError: 'open' | 'closed') => ({ limits: { store: { redis: 'redis://127.0.0.1:1', onError, commandTimeoutMs: 50 } } });

  it('fails closed with 503 service_unavailable when configured so', async () => {
    gw = await makeGateway(down('closed'));
    const { key } = await gw.account();
    const res = await gw.fetch('/v1/chat/completions', chat(key));
    expect(res.status).toBe(503);
    expect(((await res.json()) as ErrorBody).error.code).toBe('service_unavailable');
  });

  it('fails open (admits) by default', async () => {
    gw = await makeGateway(down('open'));
    const { key } = await gw.account();
    const res = await gw.fetch('/v1/chat/completions', chat(key));
    expect(res.status).toBe(200);
  });
});
