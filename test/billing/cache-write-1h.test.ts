/**
 * Anthropic's 1-hour cache writes are billed at the 1-hour write price: the catalog's
 * `cache_write_1h_mtok` (claude-sonnet-4-5: 2 × input), a config `cacheWrite1h`, else 2 × input;
 * 5-minute writes stay at `cacheWrite` (1.25 × input). Through the passthrough too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { calcPrice } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_WRITE_1H_INPUT_MULTIPLIER, maxPricing, priceTokens } from '../../src/billing/index.ts';
import { openCatalogProvider } from '../../src/catalog/index.ts';
import { configSchema } from '../../src/config/index.ts';
import type { ModelPricing } from '../../src/plugin-kit/index.ts';
import { readFixture, readJsonFixture } from '../formats/stream-helpers.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { inProcessGateway, type InProcessGateway } from '../media/in-process-app.ts';

const sonnetPricing = async (): Promise<ModelPricing> => {
  const pricing = (await openCatalogProvider('anthropic')).find('claude-sonnet-4-5')?.pricing;
  if (!pricing) throw new Error('claude-sonnet-4-5 has no catalog price');
  return pricing;
};

describe('1-hour cache write prices', () => {
  it('maps genai-prices cache_write_1h_mtok, base and long-context tier', async () => {
    const sonnet = await sonnetPricing();
    expect(sonnet).toMatchObject({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 });
    expect(sonnet.tiers?.[0]).toMatchObject({ aboveInputTokens: 200_000, input: 6, cacheWrite: 7.5, cacheWrite1h: 12 });
  });

  it('bills claude-sonnet-4-5 1-hour writes at 2 × input and 5-minute writes at 1.25 × input', async () => {
    const sonnet = await sonnetPricing();
    const input = sonnet.input!;
    // 100k input tokens, all cache writes: $3 × 0.1 × 2 = $0.6 = 600 credits for an hour, 375 for 5 minutes.
    expect(priceTokens(sonnet, 100_000, 0, 1, { write: 100_000, write1h: 100_000 })).toBe(100_000 * input * 2 / 1000);
    expect(priceTokens(sonnet, 100_000, 0, 1, { write: 100_000 })).toBe(100_000 * input * 1.25 / 1000);
    // The fixtures' split: 40 uncached × 3 + 500 read × 0.3 + 1,000 × 3.75 + 2,000 × 6 + 12 out × 15 = $0.01620.
    expect(priceTokens(sonnet, 3540, 12, 1, { read: 500, write: 3000, write1h: 2000 })).toBe(16.2);
  });

  it('gives the same price as genai-prices on both sides of the long-context threshold', async () => {
    const sonnet = await sonnetPricing();
    for (const [inputTokens, write, write1h] of [[3540, 3000, 2000], [250_000, 200_000, 150_000]]) {
      const theirs = calcPrice({ input_tokens: inputTokens, cache_read_tokens: 500, cache_write_tokens: write, cache_write_1h_tokens: write1h, output_tokens: 12 }, 'claude-sonnet-4-5', { providerId: 'anthropic' });
      expect(theirs).not.toBeNull();
      expect(priceTokens(sonnet, inputTokens, 12, 1, { read: 500, write, write1h })).toBeCloseTo(theirs!.total_price * 1000, 6);
    }
  });

  it('without a 1-hour price charges 2 × input (2 × the tier input above a tier); a declared one wins', () => {
    expect(CACHE_WRITE_1H_INPUT_MULTIPLIER).toBe(2);
    const vertexLike: ModelPricing = { input: 3, cacheWrite: 3.75, tiers: [{ aboveInputTokens: 200_000, input: 6, cacheWrite: 7.5 }] };
    expect(priceTokens(vertexLike, 1_000_000, 0, 1, { write: 1_000_000, write1h: 1_000_000 })).toBe(12_000);
    expect(priceTokens(vertexLike, 100_000, 0, 1, { write: 100_000, write1h: 40_000 })).toBe((60_000 * 3.75 + 40_000 * 6) / 1000);
    expect(priceTokens({ input: 3, cacheWrite1h: 5 }, 100_000, 0, 1, { write: 100_000, write1h: 100_000 })).toBe(500);
    // A 1-hour count above the writes is clamped to them.
    expect(priceTokens(vertexLike, 100, 0, 1, { write: 50, write1h: 80 })).toBe(priceTokens(vertexLike, 100, 0, 1, { write: 50, write1h: 50 }));
  });

  it('holds at the stricter 1-hour price and accepts cacheWrite1h in a config pricing', () => {
    expect(maxPricing([{ input: 3, cacheWrite1h: 5 }, { input: 4 }])?.cacheWrite1h).toBe(8);
    const parsed = configSchema.parse({ providers: { a: { plugin: 'anthropic', apiKey: 'x', models: [{ id: 'm', pricing: { input: 1, cacheWrite1h: 2.5, tiers: [{ aboveInputTokens: 10, cacheWrite1h: 4 }] } }] } } });
    expect(parsed.providers.a.models?.[0]).toMatchObject({ pricing: { cacheWrite1h: 2.5, tiers: [{ cacheWrite1h: 4 }] } });
  });
});

/** The file store's usage ledger lines so far (none before the first settlement). */
function ledgerLines(dataDir: string): Array<{ cost_credits: number }> {
  const file = path.join(dataDir, 'usage.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.endsWith('}')).map((line) => JSON.parse(line) as { cost_credits: number });
}

describe('1-hour cache writes through the Messages passthrough (in process)', () => {
  let upstream: FakeUpstream;
  let gw: InProcessGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream((req) => {
      const stream = (req.json as { stream?: boolean } | undefined)?.stream === true;
      return stream
        ? { headers: { 'content-type': 'text/event-stream' }, sse: [readFixture('messages/stream-cache-1h.sse.txt')] }
        : { json: readJsonFixture('messages/response-cache-1h.json') };
    });
    gw = await inProcessGateway({ providers: { an: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', models: ['claude-sonnet-4-5'] } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  const costOf = async (stream: boolean): Promise<number> => {
    const res = await gw.request('/v1/messages', {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'an/claude-sonnet-4-5', max_tokens: 64, stream, messages: [{ role: 'user', content: 'Remember this.' }] }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    // Same format in and out: the bytes (cache_creation included) go through untouched.
    expect(text).toContain('"ephemeral_1h_input_tokens":2000');
    // Settlement is off the request path: wait for the ledger line, never a fixed sleep.
    const count = stream ? 2 : 1;
    for (let i = 0; i < 100_000; i += 1) {
      const rows = ledgerLines(gw.dataDir);
      if (rows.length >= count) return rows[count - 1].cost_credits;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('the request was never billed');
  };

  it('bills a JSON answer and a stream with the 1-hour writes at 2 × input', async () => {
    // 40 × 3 + 500 × 0.3 + 1,000 × 3.75 + 2,000 × 6 + 12 × 15 = $0.0162 = 16.2 credits (all 3,000 writes at 3.75 would be 11.7).
    expect(await costOf(false)).toBe(16.2);
    expect(await costOf(true)).toBe(16.2);
  });
});
