/**
 * Hosted web searches are priced per search (`pricing.webSearch`, USD): count × price, times
 * the factor, beside the tokens; a long-context tier changes token prices only; no price or no
 * count is 0. The catalog maps genai-prices' `web_searches_kcount` ($10 per 1,000 at Anthropic
 * and OpenAI); a config pricing may set it.
 */
import { describe, expect, it } from 'vitest';
import { maxPricing, priceTokens, priceWebSearches } from '../../src/billing/index.ts';
import { openCatalogProvider } from '../../src/catalog/index.ts';
import { configSchema } from '../../src/config/index.ts';
import type { ModelPricing } from '../../src/plugin-kit/index.ts';

const claude: ModelPricing = { input: 3, output: 15, webSearch: 0.01, tiers: [{ aboveInputTokens: 200_000, input: 6, output: 22.5 }] };

describe('web search prices', () => {
  it('charges count × price: $10 per 1,000 searches is 10 credits a search', () => {
    expect(priceWebSearches(claude, 1)).toBe(10);
    expect(priceWebSearches(claude, 3)).toBe(30);
    // The batch half price and a fallback discount multiply in, as for tokens and media.
    expect(priceWebSearches(claude, 3, 0.5 * (1 - 0.2))).toBe(12);
  });

  it('is the same below and above a long-context tier, which changes the token prices only', () => {
    const searches = priceWebSearches(claude, 2);
    expect(searches).toBe(20);
    expect(priceTokens(claude, 250_000, 0)).toBe(1500);
    expect(priceTokens(claude, 100_000, 0)).toBe(300);
    expect(priceWebSearches({ ...claude, tiers: [{ aboveInputTokens: 0, input: 100 }] }, 2)).toBe(searches);
  });

  it('is 0 without a price, without a count, or for a count that is not a positive number', () => {
    expect(priceWebSearches(undefined, 4)).toBe(0);
    expect(priceWebSearches({ input: 3, output: 15 }, 4)).toBe(0);
    expect(priceWebSearches({ webSearch: 0 }, 4)).toBe(0);
    for (const count of [undefined, 0, -2, Number.NaN]) expect(priceWebSearches(claude, count)).toBe(0);
  });

  it('holds at the higher per-search price of several providers', () => {
    expect(maxPricing([{ input: 1, webSearch: 0.01 }, { input: 2, webSearch: 0.025 }, { input: 3 }])?.webSearch).toBe(0.025);
    expect(maxPricing([{ input: 1 }])?.webSearch).toBe(0);
  });

  it('comes from the catalog for Claude and the OpenAI models genai-prices prices ($10 per 1,000)', async () => {
    const anthropic = await openCatalogProvider('anthropic');
    expect(anthropic.find('claude-sonnet-4-5')?.pricing).toMatchObject({ input: 3, webSearch: 0.01 });
    expect(anthropic.find('claude-opus-4-1')?.pricing).toMatchObject({ webSearch: 0.01 });
    const openai = await openCatalogProvider('openai', 'http://127.0.0.1:1/v1');
    expect(openai.find('gpt-4.1')?.pricing).toMatchObject({ input: 2, webSearch: 0.01 });
  });

  it('is a config pricing key (USD per search, not negative, not in a tier)', () => {
    const config = (pricing: unknown) => configSchema.safeParse({ providers: { a: { plugin: 'anthropic', apiKey: 'x', models: [{ id: 'm', pricing }] } } });
    const parsed = config({ input: 3, webSearch: 0.01 });
    expect(parsed.success && parsed.data.providers.a.models?.[0]).toMatchObject({ pricing: { webSearch: 0.01 } });
    expect(config({ webSearch: -1 }).success).toBe(false);
    expect(config({ tiers: [{ aboveInputTokens: 10, webSearch: 1 }] }).success).toBe(false);
  });
});
