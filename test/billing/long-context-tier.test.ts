import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { maxPricing, priceTokens, pricingAt } from '../../src/billing/index.ts';
import { applyConfigEntry, openCatalogProvider } from '../../src/catalog/index.ts';
import { toPricingObject } from '../../src/providers/model-object-fields.ts';

/** Gemini 2.5 Pro from the bundled genai-prices data (not a hand-written copy). */
async function geminiPro() {
  const spec = (await openCatalogProvider('google')).find('gemini-2.5-pro');
  if (!spec?.pricing) throw new Error('gemini-2.5-pro has no bundled price');
  return spec;
}

/** USD → credits (1 credit = 0.001 USD), to a millionth. */
const credits = (usd: number) => Math.round(usd * 1e9) / 1e6;

describe('long-context price tiers (bundled genai-prices data)', () => {
  it('reads Gemini 2.5 Pro: $1.25 / $10 / $0.125 cached, and $2.50 / $15 / $0.25 above 200k input tokens', async () => {
    expect((await geminiPro()).pricing).toEqual({
      input: 1.25,
      output: 10,
      cacheRead: 0.125,
      tiers: [{ aboveInputTokens: 200_000, input: 2.5, output: 15, cacheRead: 0.25 }],
    });
    // Claude Sonnet 4.5 on Anthropic's list: cache writes have the tier too.
    const sonnet = (await openCatalogProvider('anthropic')).find('claude-sonnet-4-5')?.pricing;
    expect(sonnet?.tiers).toEqual([{ aboveInputTokens: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5, cacheWrite1h: 12 }]);
    // A flat model has no tiers.
    expect((await openCatalogProvider('google')).find('gemini-2.5-flash')?.pricing?.tiers).toBeUndefined();
  });

  it('bills a prompt of exactly 200k tokens at the base prices and one token more at the tier, every token kind', async () => {
    const { pricing } = await geminiPro();
    // 200,000 in (50,000 cached) + 1,000 out: 150k × 1.25 + 50k × 0.125 + 1k × 10 = $0.20375.
    expect(priceTokens(pricing, 200_000, 1_000, 1, { read: 50_000 })).toBe(203.75);
    // 200,001 in: 150,001 × 2.5 + 50k × 0.25 + 1k × 15 = $0.4025025 — input, cached and output all at the tier.
    expect(priceTokens(pricing, 200_001, 1_000, 1, { read: 50_000 })).toBe(402.5025);
    // The same numbers as genai-prices' own calculation, on both sides of the threshold.
    for (const input of [200_000, 200_001, 750_000]) {
      const theirs = calcPrice({ input_tokens: input, cache_read_tokens: 50_000, output_tokens: 1_000 }, 'gemini-2.5-pro', { providerId: 'google' });
      expect(priceTokens(pricing, input, 1_000, 1, { read: 50_000 })).toBe(credits(theirs?.total_price ?? NaN));
    }
  });

  it('counts cached tokens toward the threshold, and the batch multiplier applies to the tier price', async () => {
    const { pricing } = await geminiPro();
    // 190k fresh + 20k cached = 210k input: above 200k, so the tier.
    expect(pricingAt(pricing, 210_000)?.input).toBe(2.5);
    expect(priceTokens(pricing, 210_000, 0, 1, { read: 20_000 })).toBe(credits((190_000 * 2.5 + 20_000 * 0.25) / 1e6));
    expect(priceTokens(pricing, 210_000, 0, 0.5, { read: 20_000 })).toBe(credits((190_000 * 2.5 + 20_000 * 0.25) / 2e6));
    // Below: the base prices, tiers left as they are.
    expect(pricingAt(pricing, 200_000)).toBe(pricing);
  });

  it('holds the strictest of several providers at each threshold', async () => {
    const { pricing } = await geminiPro();
    const flat = { input: 2, output: 12 };
    expect(maxPricing([pricing, flat])).toMatchObject({
      input: 2,
      output: 12,
      cacheRead: 2,
      tiers: [{ aboveInputTokens: 200_000, input: 2.5, output: 15, cacheRead: 2 }],
    });
    // Tiers at different thresholds: a step at each (a cache price left out is the input price, a 1-hour write price 2 × input).
    const early = { input: 1, output: 1, tiers: [{ aboveInputTokens: 128_000, input: 3 }] };
    expect(maxPricing([pricing, early])?.tiers).toEqual([
      { aboveInputTokens: 128_000, input: 3, output: 10, cacheRead: 3, cacheWrite: 3, cacheWrite1h: 6 },
      { aboveInputTokens: 200_000, input: 3, output: 15, cacheRead: 3, cacheWrite: 3, cacheWrite1h: 6 },
    ]);
  });

  it('keeps config-given prices as typed: a config pricing without tiers bills flat, one with tiers bills them', async () => {
    const spec = await geminiPro();
    const flat = applyConfigEntry(spec, { pricing: { input: 1, output: 2 } });
    expect(flat.pricing).toEqual({ input: 1, output: 2 });
    expect(priceTokens(flat.pricing, 300_000, 0)).toBe(300);
    const tiered = applyConfigEntry(spec, { pricing: { input: 1, output: 2, tiers: [{ aboveInputTokens: 100_000, input: 4 }] } });
    expect(priceTokens(tiered.pricing, 300_000, 1_000)).toBe(1202);
  });

  it('shows the tier in the /v1/models pricing object', async () => {
    expect(toPricingObject((await geminiPro()).pricing)).toEqual({
      prompt: '0.00000125',
      completion: '0.00001',
      input_cache_read: '0.000000125',
      tiers: [{ above_input_tokens: 200_000, prompt: '0.0000025', completion: '0.000015', input_cache_read: '0.00000025' }],
    });
  });
});
