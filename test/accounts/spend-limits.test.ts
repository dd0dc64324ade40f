import { InProcessCredits, type CreditBook } from '../../src/credits/index.ts';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountGuards } from '../../src/accounts/index.ts';
import { nextResetAt } from '../../src/credits/spend-period.ts';
import { readLedger } from '../../src/store/index.ts';
import { get, makeGateway, post, type TestGateway } from './make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** Only output priced, 1 credit per token: with max_tokens 1 a request reserves and costs exactly 1 credit. */
const OUTPUT_ONLY = { providers: { mock: { plugin: 'mock', latencyMs: 20, models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] } } };
const MEDIA = { providers: { mock: { plugin: 'mock' } } };

const chat = (key: string, extra: Record<string, unknown> = {}) => post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 1, ...extra }, key);

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}
interface KeyBody {
  data: { limit: number | null; limit_remaining: number | null; limit_reset: string | null; usage: number; limit_credits: { limit: number; remaining: number; used: number; reset: string | null; resets_at: number | null } | null };
}

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 2, 10, 9, 0, 0)) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms) };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

/** The in-process engine's credit book (these tests run on the file store): what requests in flight hold. */
function bookOf(of: TestGateway | AccountGuards): CreditBook {
  const credits = (of instanceof AccountGuards ? of : guardsOf(of)).credits;
  if (!(credits instanceof InProcessCredits)) throw new Error('the in-process credit engine expected (file store)');
  return credits.book;
}

function guardsOf(t: TestGateway): AccountGuards {
  return t.gateway.deps.guards as AccountGuards;
}

async function keyView(t: TestGateway, key: string): Promise<KeyBody['data']> {
  return ((await (await t.fetch('/v1/key', get(key))).json()) as KeyBody).data;
}

function charged(t: TestGateway, keyId?: string): number {
  return readLedger(path.join(t.dataDir, 'usage.jsonl'))
    .filter((l) => !keyId || l.key_id === keyId)
    .reduce((sum, l) => sum + l.charged_credits, 0);
}

describe('reset periods', () => {
  it('end at the next UTC midnight, Monday and first of the month', () => {
    const wed = Date.UTC(2026, 2, 11, 15, 30); // Wednesday
    expect(nextResetAt('daily', wed)).toBe(Date.UTC(2026, 2, 12) / 1000);
    expect(nextResetAt('weekly', wed)).toBe(Date.UTC(2026, 2, 16) / 1000);
    expect(nextResetAt('weekly', Date.UTC(2026, 2, 16, 0, 0))).toBe(Date.UTC(2026, 2, 23) / 1000);
    expect(nextResetAt('monthly', wed)).toBe(Date.UTC(2026, 3, 1) / 1000);
    expect(nextResetAt(null, wed)).toBeNull();
  });
});

describe('key spend limits', () => {
  it('50 concurrent priced requests against a limit of 10 credits: exactly 10 pass, the rest get 402 naming the key limit', async () => {
    const clock = manualClock();
    gw = await makeGateway(OUTPUT_ONLY, { clock });
    const { key, keyId, accountId } = await gw.account({ credits: 1000, tier: 'enterprise', key: { limit: 10, limitReset: 'monthly' } });
    const responses = await Promise.all(Array.from({ length: 50 }, () => gw!.fetch('/v1/chat/completions', chat(key))));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(40);
    const refused = (await responses.find((r) => r.status === 402)!.json()) as ErrorBody;
    expect(refused.error.code).toBe('insufficient_balance');
    expect(refused.error.message).toContain("This API key's spend limit of 10 credits (monthly)");
    expect(refused.error.details).toMatchObject({ scope: 'key_limit', key_id: keyId, limit: 10, limit_reset: 'monthly', required: 1, unit: 'credits', resets_at: Date.UTC(2026, 3, 1) / 1000 });
    await settle();
    expect(charged(gw)).toBe(10);
    // The balance paid for exactly what the key spent.
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(990);
    const view = await keyView(gw, key);
    expect(view).toMatchObject({ limit: 0.01, limit_remaining: 0, limit_reset: 'monthly', usage: 0.01 });
    expect(view.limit_credits).toEqual({ limit: 10, remaining: 0, used: 10, reserved: 0, reset: 'monthly', resets_at: Date.UTC(2026, 3, 1) / 1000 });

    // Next month the limit starts over.
    clock.set(Date.UTC(2026, 3, 1, 0, 0, 1));
    expect((await keyView(gw, key)).limit_credits).toMatchObject({ remaining: 10, used: 0 });
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
  });

  it('daily and weekly limits start over at UTC midnight and on Monday; no reset means all time', async () => {
    const clock = manualClock(Date.UTC(2026, 2, 11, 12)); // Wednesday
    gw = await makeGateway(OUTPUT_ONLY, { clock });
    const daily = await gw.account({ key: { limit: 1, limitReset: 'daily' } });
    const weekly = await gw.account({ key: { limit: 1, limitReset: 'weekly' } });
    const forever = await gw.account({ key: { limit: 1 } });
    for (const k of [daily, weekly, forever]) {
      expect((await gw.fetch('/v1/chat/completions', chat(k.key))).status).toBe(200);
      await settle();
      expect((await gw.fetch('/v1/chat/completions', chat(k.key))).status).toBe(402);
    }
    clock.set(Date.UTC(2026, 2, 12, 0, 0, 1)); // Thursday
    expect((await gw.fetch('/v1/chat/completions', chat(daily.key))).status).toBe(200);
    expect((await gw.fetch('/v1/chat/completions', chat(weekly.key))).status).toBe(402);
    clock.set(Date.UTC(2026, 2, 16, 0, 0, 1)); // Monday
    expect((await gw.fetch('/v1/chat/completions', chat(weekly.key))).status).toBe(200);
    clock.set(Date.UTC(2027, 0, 1));
    expect((await gw.fetch('/v1/chat/completions', chat(forever.key))).status).toBe(402);
    expect((await keyView(gw, forever.key)).limit_reset).toBeNull();
  });

  it('never charges past the limit even when answers cost more than they reserved', async () => {
    gw = await makeGateway({ ...OUTPUT_ONLY, billing: { reserveOutputTokens: 1 } });
    const { key, keyId } = await gw.account({ credits: 1000, tier: 'enterprise', key: { limit: 5 } });
    const body = { model: 'mock/echo', messages: [{ role: 'user', content: 'a reply of about seven tokens' }] };
    await Promise.all(Array.from({ length: 30 }, () => gw!.fetch('/v1/chat/completions', post(body, key))));
    await settle();
    expect(charged(gw, keyId)).toBeLessThanOrEqual(5);
    expect(charged(gw, keyId)).toBeGreaterThan(4);
    const lines = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    expect(lines.some((l) => l.charged_credits < l.cost_credits)).toBe(true);
    expect(bookOf(gw).reservedForKey(keyId)).toBe(0);
  });

  it('holds with billing.enforce false too (the limit is the key\'s own setting)', async () => {
    gw = await makeGateway({ ...OUTPUT_ONLY, billing: { enforce: false } });
    const { key } = await gw.account({ credits: 0, key: { limit: 2 } });
    const statuses = await Promise.all(Array.from({ length: 6 }, () => gw!.fetch('/v1/chat/completions', chat(key)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
  });

  it('holds for images: each reserves its images, so concurrent generations stop at the limit', async () => {
    gw = await makeGateway(MEDIA);
    // mock/image costs 0.01 USD = 10 credits an image.
    const { key, keyId } = await gw.account({ credits: 1000, tier: 'enterprise', key: { limit: 25 } });
    const image = (n = 1) => gw!.fetch('/v1/images/generations', post({ model: 'mock/image', prompt: 'a cat', n, response_format: 'b64_json' }, key));
    const statuses = await Promise.all(Array.from({ length: 6 }, () => image().then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 402)).toHaveLength(4);
    await settle();
    expect(charged(gw, keyId)).toBe(20);
    // Two images need 20 credits; 5 are left.
    const two = await image(2);
    expect(two.status).toBe(402);
    expect(((await two.json()) as ErrorBody).error.details).toMatchObject({ scope: 'key_limit', required: 20, available: 5 });
  });

  it('holds for audio: speech reserves its characters, and no charge passes the limit', async () => {
    gw = await makeGateway(MEDIA);
    // mock/tts: 15 USD per million characters = 0.015 credits a character; 100 characters = 1.5 credits.
    const { key, keyId } = await gw.account({ credits: 1000, tier: 'enterprise', key: { limit: 5 } });
    const speech = () => gw!.fetch('/v1/audio/speech', post({ model: 'mock/tts', input: 'x'.repeat(100), voice: 'alloy', response_format: 'wav' }, key));
    const statuses = await Promise.all(Array.from({ length: 8 }, () => speech().then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(5);
    await settle();
    expect(charged(gw, keyId)).toBeCloseTo(4.5, 6);
  });
});

describe('account monthly spend cap', () => {
  it('counts every key of the account and starts over next month', async () => {
    const clock = manualClock();
    gw = await makeGateway(OUTPUT_ONLY, { clock });
    const first = await gw.account({ credits: 1000, tier: 'enterprise' });
    await gw.gateway.deps.store.accounts.update(first.accountId, { spendCap: 3 });
    const email = gw.gateway.deps.store.cache.account(first.accountId)!.email;
    const { createKey } = await import('../../src/admin/accounts.ts');
    const second = await createKey(gw.gateway.deps.store, clock, { account: email });
    expect((await gw.fetch('/v1/chat/completions', chat(first.key))).status).toBe(200);
    expect((await gw.fetch('/v1/chat/completions', chat(second.key))).status).toBe(200);
    expect((await gw.fetch('/v1/chat/completions', chat(first.key))).status).toBe(200);
    await settle();
    const res = await gw.fetch('/v1/chat/completions', chat(second.key));
    expect(res.status).toBe(402);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.message).toContain("The account's monthly spend cap of 3 credits");
    expect(error.details).toMatchObject({ scope: 'account_spend_cap', account_id: first.accountId, limit: 3, used: 3 });
    clock.set(Date.UTC(2026, 3, 2));
    expect((await gw.fetch('/v1/chat/completions', chat(second.key))).status).toBe(200);
  });
});

describe('limits and scopes belong to the admission (what the batch executor will call)', () => {
  it('batch-priced admissions reserve half price against the same limit, and a key without chat cannot run chat lines', async () => {
    gw = await makeGateway(OUTPUT_ONLY);
    const { keyId, accountId } = await gw.account({ credits: 1000, tier: 'enterprise', key: { limit: 5 } });
    const store = gw.gateway.deps.store;
    const account = (await store.accounts.get(accountId))!;
    const key = (await store.keys.get(keyId))!;
    const line = { auth: { account, key }, method: 'POST', route: '/v1/chat/completions', clientAddress: '::1', model: 'mock/echo', estimatedInputTokens: 0, maxOutputTokens: 1, priceMultiplier: 0.5 };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => guardsOf(gw!).admit(line)));
    // 0.5 credits a line: ten fit in 5.
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'insufficient_balance', details: { scope: 'key_limit' } } });
    expect(bookOf(gw).reservedForKey(keyId)).toBe(5);
    for (const r of results) if (r.status === 'fulfilled') await r.value.settle(null);
    expect(bookOf(gw).reservedForKey(keyId)).toBe(0);

    await store.keys.update(keyId, { endpoints: ['batches'] });
    const scoped = (await store.keys.get(keyId))!;
    await expect(guardsOf(gw).admit({ ...line, auth: { account, key: scoped } })).rejects.toMatchObject({ code: 'authorization_error', details: { endpoint: 'chat' } });
  });
});
