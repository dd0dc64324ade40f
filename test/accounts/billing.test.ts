import { InProcessCredits, type CreditBook } from '../../src/credits/index.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountGuards } from '../../src/accounts/index.ts';
import type { Settlement } from '../../src/pipeline/types.ts';
import { readLedger } from '../../src/store/index.ts';
import { get, makeGateway, post, type TestGateway } from './make-gateway.ts';
import path from 'node:path';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** 1 credit per token, input and output. */
const PER_TOKEN = { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }, { id: 'vip', minTier: 'pro', pricing: { input: 1000, output: 1000 } }] } } };
/** Only output priced, 1 credit per token: with max_tokens 1 a request reserves and costs exactly 1 credit. */
const OUTPUT_ONLY = { providers: { mock: { plugin: 'mock', latencyMs: 20, models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] } } };

const chat = (key: string, extra: Record<string, unknown> = {}) => post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8, ...extra }, key);

interface ErrorBody {
  error: { code: string; details?: Record<string, unknown> };
}

/** The in-process engine's credit book (these tests run on the file store): what requests in flight hold. */
function bookOf(of: TestGateway | AccountGuards): CreditBook {
  const credits = (of instanceof AccountGuards ? of : guardsOf(of)).credits;
  if (!(credits instanceof InProcessCredits)) throw new Error('the in-process credit engine expected (file store)');
  return credits.book;
}

function guardsOf(t: TestGateway): AccountGuards {
  const guards = t.gateway.deps.guards;
  if (!(guards instanceof AccountGuards)) throw new Error('account guards not wired');
  return guards;
}

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 30));
}

describe('credits', () => {
  it('reserves the estimate, charges the actual usage and gives the rest back', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { key, accountId } = await gw.account({ credits: 1000 });
    const res = await gw.fetch('/v1/chat/completions', chat(key));
    expect(res.status).toBe(200);
    const usage = ((await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    await settle();
    const cost = usage.prompt_tokens + usage.completion_tokens;
    expect(gw.gateway.deps.store.cache.account(accountId)?.credits).toBe(1000 - cost);
    expect(bookOf(gw).reserved(accountId)).toBe(0);
    const [line] = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    expect(line).toMatchObject({ seq: 1, account_id: accountId, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', cost_credits: cost, charged_credits: cost, aborted: false });
  });

  it('answers 402 insufficient_balance with required and balance in credits', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { key } = await gw.account({ credits: 5 });
    const res = await gw.fetch('/v1/chat/completions', chat(key, { max_tokens: 100 }));
    expect(res.status).toBe(402);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe('insufficient_balance');
    // the hold: 'hello' at most 5 + 8 (its message) + 16 (the request) = 29 input tokens, + 100 output tokens
    expect(body.error.details).toEqual({ required: 129, balance: 5, reserved: 0, available: 5, unit: 'credits' });
  });

  it('reserves the default output allowance when the request names no max_tokens', async () => {
    gw = await makeGateway({ ...PER_TOKEN, billing: { reserveOutputTokens: 50 } });
    const { key } = await gw.account({ credits: 40 });
    const res = await gw.fetch('/v1/chat/completions', post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }] }, key));
    expect(res.status).toBe(402);
    // 29 input tokens at most ('hello' and its framing) + the 50 of billing.reserveOutputTokens (mock/echo states no maximum output)
    expect(((await res.json()) as ErrorBody).error.details?.required).toBe(79);
  });

  it('200 concurrent requests against credit for 100: exactly 100 succeed and the balance ends at zero', async () => {
    gw = await makeGateway(OUTPUT_ONLY);
    const { key, accountId } = await gw.account({ credits: 100, tier: 'enterprise' });
    await gw.gateway.deps.store.accounts.update(accountId, { rpm: 10_000 });
    const statuses = await Promise.all(Array.from({ length: 200 }, () => gw!.fetch('/v1/chat/completions', chat(key, { max_tokens: 1 })).then((r) => r.status)));
    await settle();
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 402)).toHaveLength(100);
    expect(gw.gateway.deps.store.cache.account(accountId)?.credits).toBe(0);
    const lines = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    expect(lines).toHaveLength(100);
    expect(lines.reduce((sum, l) => sum + l.charged_credits, 0)).toBe(100);
  });

  it('never drives the balance below zero even when requests cost more than their reservation', async () => {
    // Reserve 1 output token, but each reply is longer: reservations undershoot.
    gw = await makeGateway({ ...OUTPUT_ONLY, billing: { reserveOutputTokens: 1 } });
    const { key, accountId } = await gw.account({ credits: 100, tier: 'enterprise' });
    const body = { model: 'mock/echo', messages: [{ role: 'user', content: 'a reply of about seven tokens' }] };
    let lowest = Infinity;
    const watch = setInterval(() => (lowest = Math.min(lowest, gw!.gateway.deps.store.cache.account(accountId)!.credits)), 1);
    await Promise.all(Array.from({ length: 200 }, () => gw!.fetch('/v1/chat/completions', post(body, key)).then((r) => r.status)));
    await settle();
    clearInterval(watch);
    const balance = gw.gateway.deps.store.cache.account(accountId)!.credits;
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(lowest).toBeGreaterThanOrEqual(0);
    const lines = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    const charged = lines.reduce((sum, l) => sum + l.charged_credits, 0);
    expect(charged).toBeCloseTo(100 - balance, 6);
    expect(lines.every((l) => l.charged_credits <= l.cost_credits)).toBe(true);
    expect(lines.some((l) => l.charged_credits < l.cost_credits)).toBe(true);
  });

  it('with enforce: false admits without balance and charges anyway', async () => {
    gw = await makeGateway({ ...PER_TOKEN, billing: { enforce: false } });
    const { key, accountId } = await gw.account({ credits: 0 });
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
    await settle();
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBeLessThan(0);
  });

  it('settles a stream when it ends', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { key, accountId } = await gw.account({ credits: 1000 });
    const res = await gw.fetch('/v1/chat/completions', chat(key, { stream: true, stream_options: { include_usage: true } }));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('[DONE]');
    await settle();
    const [line] = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    expect(line.aborted).toBe(false);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(1000 - line.charged_credits);
    expect(bookOf(gw).reserved(accountId)).toBe(0);
  });

  it('settles a stream the client abandons: charged for what was sent, the reservation released', async () => {
    gw = await makeGateway({ providers: { mock: { plugin: 'mock', chunkDelayMs: 30, models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } } });
    const { key, accountId } = await gw.account({ credits: 1000 });
    const controller = new AbortController();
    const long = 'word '.repeat(60);
    const res = await gw.fetch('/v1/chat/completions', { ...chat(key, { stream: true, max_tokens: 200, messages: [{ role: 'user', content: long }] }), signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    expect(bookOf(gw).reserved(accountId)).toBeGreaterThan(0);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    for (let i = 0; i < 50 && bookOf(gw).reserved(accountId) > 0; i++) await settle();
    expect(bookOf(gw).reserved(accountId)).toBe(0);
    const [line] = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    expect(line.aborted).toBe(true);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(1000 - line.charged_credits);
  });
});

describe('model tiers', () => {
  it('answers 403 model_tier_restricted below the model minTier and admits at or above it', async () => {
    gw = await makeGateway(PER_TOKEN);
    const low = await gw.account({ tier: 'fellow' });
    const res = await gw.fetch('/v1/chat/completions', chat(low.key, { model: 'mock/vip' }));
    expect(res.status).toBe(403);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe('model_tier_restricted');
    expect(body.error.details).toMatchObject({ required_tier: 'pro', tier: 'fellow' });
    const high = await gw.account({ tier: 'enterprise' });
    expect((await gw.fetch('/v1/chat/completions', chat(high.key, { model: 'vip' }))).status).toBe(200);
  });
});

describe('monthly token quota', () => {
  it('answers 429 quota_exceeded once the month\'s tokens are used up', async () => {
    gw = await makeGateway();
    const { key, accountId } = await gw.account();
    // 'twelve chars' holds 36 input tokens at most (12 bytes + framing) and uses 9: a few fit in 60.
    await gw.gateway.deps.store.accounts.update(accountId, { monthlyTokenQuota: 60 });
    const first = await gw.fetch('/v1/chat/completions', chat(key, { messages: [{ role: 'user', content: 'twelve chars' }] }));
    expect(first.status).toBe(200);
    await settle();
    const used = readLedger(path.join(gw.dataDir, 'usage.jsonl'))[0];
    expect(used.input_tokens + used.output_tokens).toBeGreaterThan(5);
    let status = 200;
    let body: ErrorBody | undefined;
    for (let i = 0; i < 5 && status === 200; i++) {
      const res = await gw.fetch('/v1/chat/completions', chat(key, { messages: [{ role: 'user', content: 'twelve chars' }] }));
      status = res.status;
      if (status !== 200) body = (await res.json()) as ErrorBody;
      await settle();
    }
    expect(status).toBe(429);
    expect(body?.error.code).toBe('quota_exceeded');
    expect(body?.error.details).toMatchObject({ quota: 60 });
    // Refused because this request's input would pass the quota on top of what the month used.
    const tokens = readLedger(path.join(gw.dataDir, 'usage.jsonl')).reduce((n, l) => n + l.input_tokens + l.output_tokens, 0);
    const details = body!.error.details as { used: number; requested: number };
    expect(details.used).toBe(tokens);
    expect(details.used + details.requested).toBeGreaterThan(60);
    // Lifting the quota admits again.
    await gw.gateway.deps.store.accounts.update(accountId, { monthlyTokenQuota: null });
    expect((await gw.fetch('/v1/chat/completions', chat(key))).status).toBe(200);
  });
});

describe('settlement factors', () => {
  async function admitAndSettle(t: TestGateway, extra: { priceMultiplier?: number; discount?: number }) {
    const { key, accountId } = await t.account({ credits: 1000 });
    const record = await t.gateway.deps.store.keys.list(accountId);
    const account = t.gateway.deps.store.cache.account(accountId)!;
    const guards = guardsOf(t);
    const admission = await guards.admit({
      auth: { account, key: record[0] },
      method: 'POST',
      route: '/v1/chat/completions',
      clientAddress: '127.0.0.1',
      model: 'mock/echo',
      estimatedInputTokens: 100,
      maxOutputTokens: 100,
      priceMultiplier: extra.priceMultiplier,
    });
    expect(bookOf(guards).reserved(accountId)).toBe(200 * (extra.priceMultiplier ?? 1));
    const model = t.gateway.deps.registry.get('mock/echo')!;
    const fallback = { provider: 'mock', model: 'mock/echo', from: 'other/echo', reason: 'provider_error', discount: extra.discount };
    const settlement = {
      model,
      usage: { inputTokens: 100, outputTokens: 100 },
      estimated: false,
      aborted: false,
      ...(extra.discount ? { fallback } : {}),
    } as Settlement;
    await admission.settle(settlement);
    await admission.settle(settlement); // idempotent
    void key;
    return { balance: t.gateway.deps.store.cache.account(accountId)!.credits, reserved: bookOf(guards).reserved(accountId) };
  }

  it('charges half with priceMultiplier 0.5 (batches)', async () => {
    gw = await makeGateway(PER_TOKEN);
    expect(await admitAndSettle(gw, { priceMultiplier: 0.5 })).toEqual({ balance: 900, reserved: 0 });
    const line = readLedger(path.join(gw.dataDir, 'usage.jsonl'))[0];
    expect(line).toMatchObject({ cost_credits: 100, price_multiplier: 0.5 });
  });

  it('applies a fallback discount from the settlement', async () => {
    gw = await makeGateway(PER_TOKEN);
    expect(await admitAndSettle(gw, { discount: 0.25 })).toEqual({ balance: 850, reserved: 0 });
    expect(readLedger(path.join(gw.dataDir, 'usage.jsonl'))[0]).toMatchObject({ cost_credits: 150, discount: 0.25 });
  });

  it('fails closed on a price that is no finite count: no NaN hold, a NaN cost charged as the hold', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { accountId } = await gw.account({ credits: 1000 });
    const account = gw.gateway.deps.store.cache.account(accountId)!;
    const [key] = await gw.gateway.deps.store.keys.list(accountId);
    const guards = guardsOf(gw);
    const request = { auth: { account, key }, method: 'POST', route: '/v1/chat/completions', clientAddress: '::1', model: 'mock/echo', estimatedInputTokens: 100, maxOutputTokens: 100 };
    // A NaN hold would pass the balance check and make the account's held credits NaN.
    await expect(Promise.resolve().then(() => guards.admit({ ...request, priceMultiplier: Number.NaN }))).rejects.toMatchObject({ code: 'internal_error' });
    expect(bookOf(guards).reserved(accountId)).toBe(0);
    const admission = await guards.admit(request);
    expect(bookOf(guards).reserved(accountId)).toBe(200);
    const model = gw.gateway.deps.registry.get('mock/echo')!;
    await admission.settle({ model, usage: { inputTokens: Number.NaN, outputTokens: 100 }, estimated: false, aborted: false } as Settlement);
    expect(bookOf(guards).reserved(accountId)).toBe(0);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(800);
    expect(readLedger(path.join(gw.dataDir, 'usage.jsonl'))[0]).toMatchObject({ cost_credits: 200 });
  });

  it('releases everything when settled with null', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { accountId } = await gw.account({ credits: 1000 });
    const account = gw.gateway.deps.store.cache.account(accountId)!;
    const [key] = await gw.gateway.deps.store.keys.list(accountId);
    const admission = await guardsOf(gw).admit({ auth: { account, key }, method: 'POST', route: '/v1/chat/completions', clientAddress: '::1', model: 'mock/echo', estimatedInputTokens: 10, maxOutputTokens: 10 });
    expect(bookOf(gw).reserved(accountId)).toBe(20);
    await admission.settle(null);
    expect(bookOf(gw).reserved(accountId)).toBe(0);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(1000);
    expect(readLedger(path.join(gw.dataDir, 'usage.jsonl'))).toHaveLength(0);
  });
});

describe('ledger group commit', () => {
  it('a settlement alone in flight is written at once; with others in flight it waits for its group, credits still reserved', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { accountId } = await gw.account({ credits: 1000 });
    const account = gw.gateway.deps.store.cache.account(accountId)!;
    const [key] = await gw.gateway.deps.store.keys.list(accountId);
    const guards = guardsOf(gw);
    const admit = () => guards.admit({ auth: { account, key }, method: 'POST', route: '/v1/chat/completions', clientAddress: '::1', model: 'mock/echo', estimatedInputTokens: 10, maxOutputTokens: 10 });
    const settlement = { model: gw.gateway.deps.registry.get('mock/echo')!, usage: { inputTokens: 10, outputTokens: 10 }, estimated: false, aborted: false } as Settlement;
    const ledger = () => readLedger(path.join(gw!.dataDir, 'usage.jsonl'));

    const first = await admit();
    const second = await admit();
    const settled = first.settle(settlement);
    // The other admission may settle soon: the line waits (at most billing.ledgerGroupMs), nothing is booked yet.
    expect(first.recording).toBeInstanceOf(Promise);
    expect(ledger()).toHaveLength(0);
    expect(bookOf(guards).reserved(accountId)).toBe(40);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(1000);
    await first.recording;
    expect(ledger()).toHaveLength(1);
    expect(bookOf(guards).reserved(accountId)).toBe(20);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(980);
    expect(await settled).toEqual({ cost: 20, charged: 20, held: 20 });

    // The last one in flight writes at once.
    await second.settle(settlement);
    expect(second.recording).toBeUndefined();
    expect(ledger().map((l) => l.seq)).toEqual([1, 2]);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(960);
  });

  it('a lone settlement in a group with a waiting one writes both, in order', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { accountId } = await gw.account({ credits: 1000 });
    const account = gw.gateway.deps.store.cache.account(accountId)!;
    const [key] = await gw.gateway.deps.store.keys.list(accountId);
    const guards = guardsOf(gw);
    const admit = () => guards.admit({ auth: { account, key }, method: 'POST', route: '/v1/chat/completions', clientAddress: '::1', model: 'mock/echo', estimatedInputTokens: 10, maxOutputTokens: 10 });
    const settlement = { model: gw.gateway.deps.registry.get('mock/echo')!, usage: { inputTokens: 10, outputTokens: 10 }, estimated: false, aborted: false } as Settlement;
    const [a, b] = [await admit(), await admit()];
    void a.settle(settlement);
    await b.settle(settlement);
    expect(readLedger(path.join(gw.dataDir, 'usage.jsonl')).map((l) => l.seq)).toEqual([1, 2]);
    await a.recording;
    expect(bookOf(guards).reserved(accountId)).toBe(0);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(960);
  });
});

describe('media prices', () => {
  const MEDIA = {
    providers: { mock: { plugin: 'mock', models: [{ id: 'painter', type: 'image_generation', pricing: { image: 0.04 } }, { id: 'voice', type: 'audio', pricing: { speechChars: 15 } }] } },
  };

  async function admitFor(t: TestGateway, credits: number, model: string) {
    const { accountId } = await t.account({ credits });
    const account = t.gateway.deps.store.cache.account(accountId)!;
    const [key] = await t.gateway.deps.store.keys.list(accountId);
    const admission = await guardsOf(t).admit({ auth: { account, key }, method: 'POST', route: '/v1/images/generations', clientAddress: '::1', model });
    return { admission, accountId };
  }

  it('reserves one image and charges per image from the settlement units', async () => {
    gw = await makeGateway(MEDIA);
    const { admission, accountId } = await admitFor(gw, 1000, 'mock/painter');
    expect(bookOf(gw).reserved(accountId)).toBe(40);
    const model = gw.gateway.deps.registry.get('mock/painter')!;
    await admission.settle({ model, usage: { inputTokens: 10, outputTokens: 0 }, estimated: true, aborted: false, media: { images: 3 } } as Settlement);
    expect(gw.gateway.deps.store.cache.account(accountId)!.credits).toBe(880);
    expect(readLedger(path.join(gw.dataDir, 'usage.jsonl'))[0]).toMatchObject({ cost_credits: 120, media: { images: 3 } });
  });

  it('refuses a priced request of unknown size when nothing is available', async () => {
    gw = await makeGateway(MEDIA);
    await expect(admitFor(gw, 0, 'mock/voice')).rejects.toMatchObject({ code: 'insufficient_balance' });
    await expect(admitFor(gw, 0, 'mock/painter')).rejects.toMatchObject({ code: 'insufficient_balance', details: { required: 40 } });
    const { admission } = await admitFor(gw, 1, 'mock/voice');
    await admission.settle(null);
  });
});

describe('unknown models', () => {
  it('leave the pipeline to answer model_not_found and hold nothing', async () => {
    gw = await makeGateway(PER_TOKEN);
    const { key, accountId } = await gw.account({ credits: 10 });
    const res = await gw.fetch('/v1/chat/completions', chat(key, { model: 'nope/nothing' }));
    expect(res.status).toBe(404);
    await settle();
    expect(bookOf(gw).reserved(accountId)).toBe(0);
    expect((await gw.fetch('/v1/credits', get(key))).status).toBe(200);
  });
});

describe('the hold covers hosted web searches (docs/billing.md, the hold rule)', () => {
  /** 1 credit an output token, no input price; 10 credits a search ($10 per 1,000); `plain` has no search price. */
  const SEARCHING = { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000, webSearch: 0.01 } }, { id: 'plain', pricing: { input: 0, output: 1000 } }] } } };

  /** Asks the guards to hold 10 output tokens (10 credits) of `model`, with `webSearch` when given. */
  async function holdFor(t: TestGateway, credits: number, webSearch?: { maxUses?: number }, model = 'mock/echo') {
    const { accountId } = await t.account({ credits });
    const account = t.gateway.deps.store.cache.account(accountId)!;
    const [key] = await t.gateway.deps.store.keys.list(accountId);
    const request = { auth: { account, key }, method: 'POST', route: '/v1/messages', clientAddress: '::1', model, estimatedInputTokens: 0, maxOutputTokens: 10, requestId: `search-${accountId}` };
    const admission = await guardsOf(t).admit(webSearch ? { ...request, webSearch } : request);
    return { admission, held: bookOf(t).reserved(accountId) };
  }

  it('402 when the balance covers the tokens but not the tokens + max_uses × the search price; admitted when it covers both', async () => {
    gw = await makeGateway(SEARCHING);
    await expect(holdFor(gw, 39, { maxUses: 3 })).rejects.toMatchObject({ code: 'insufficient_balance', details: { required: 40, balance: 39 } });
    const { admission, held } = await holdFor(gw, 40, { maxUses: 3 });
    expect(held).toBe(40);
    await admission.settle(null);
  });

  it('a search tool without max_uses holds billing.reserveWebSearches (5) searches; the config changes it', async () => {
    gw = await makeGateway(SEARCHING);
    const { admission, held } = await holdFor(gw, 1000, {});
    expect(held).toBe(10 + 5 * 10);
    await admission.settle(null);
    await gw.close();
    gw = await makeGateway({ ...SEARCHING, billing: { reserveWebSearches: 2 } });
    const two = await holdFor(gw, 1000, {});
    expect(two.held).toBe(10 + 2 * 10);
    await two.admission.settle(null);
  });

  it('a model billed per grounded answer (webSearchesPerAnswer 1) holds one search, whatever max_uses or the default say', async () => {
    const perAnswer = { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000, webSearch: 0.035, webSearchesPerAnswer: 1 } }] } } };
    gw = await makeGateway(perAnswer);
    for (const webSearch of [{}, { maxUses: 4 }]) {
      const { admission, held } = await holdFor(gw, 1000, webSearch);
      expect(held).toBe(10 + 35);
      await admission.settle(null);
    }
    await expect(holdFor(gw, 44, {})).rejects.toMatchObject({ code: 'insufficient_balance', details: { required: 45 } });
  });

  it('a model whose only price is its search price (an unpriced Gemini id, billing.unpriced free) needs a balance only for a request that searches', async () => {
    gw = await makeGateway({ providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { webSearch: 0.014 } }] } } });
    // Nothing to charge without a search: an empty balance is admitted, as for any free model (402 before).
    const { admission, held } = await holdFor(gw, 0);
    expect(held).toBe(0);
    await admission.settle(null);
    await expect(holdFor(gw, 0, {})).rejects.toMatchObject({ code: 'insufficient_balance', details: { required: 70 } });
  });

  it('without a search tool, or on a model without a search price, the hold is the tokens alone', async () => {
    gw = await makeGateway(SEARCHING);
    for (const [webSearch, model] of [[undefined, 'mock/echo'], [{ maxUses: 3 }, 'mock/plain'], [{}, 'mock/plain']] as const) {
      const { admission, held } = await holdFor(gw, 1000, webSearch, model);
      expect(held).toBe(10);
      await admission.settle(null);
    }
  });

  it("through the HTTP door: a Messages body's web search with max_uses is held before the call", async () => {
    gw = await makeGateway(SEARCHING);
    const { key } = await gw.account({ credits: 50 });
    const body = (tool: Record<string, unknown>) => post({ model: 'mock/echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'web_search_20250305', name: 'web_search', ...tool }] }, key);
    const refused = await gw.fetch('/v1/messages', body({ max_uses: 5 }));
    expect(refused.status).toBe(402);
    // 10 output tokens + 5 searches × 10 credits
    expect(((await refused.json()) as ErrorBody).error.details?.required).toBe(60);
    const admitted = await gw.fetch('/v1/messages', body({ max_uses: 4 }));
    expect(admitted.status).toBe(200);
  });

  it("through the HTTP door: a Responses body's max_tool_calls bounds its web search's hold (the default 5 without it)", async () => {
    gw = await makeGateway(SEARCHING);
    const { key } = await gw.account({ credits: 50 });
    const body = (extra: Record<string, unknown>) => post({ model: 'mock/echo', max_output_tokens: 10, input: 'hi', tools: [{ type: 'web_search' }], ...extra }, key);
    // 10 output tokens + n searches × 10 credits
    for (const [extra, required] of [[{ max_tool_calls: 5 }, 60], [{}, 60]] as const) {
      const refused = await gw.fetch('/v1/responses', body(extra));
      expect(refused.status).toBe(402);
      expect(((await refused.json()) as ErrorBody).error.details?.required).toBe(required);
    }
    const admitted = await gw.fetch('/v1/responses', body({ max_tool_calls: 4 }));
    expect(admitted.status).toBe(200);
  });
});
