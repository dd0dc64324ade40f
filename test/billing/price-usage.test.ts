import { describe, expect, it } from 'vitest';
import { billingConfigSchema, creditsToUsd, discountOf, hasPrice, isPriced, maxPricing, mediaUnitsOf, priceMedia, priceTokens, roundCredits } from '../../src/billing/index.ts';

describe('pricing', () => {
  it('prices tokens in credits at USD per million tokens (1 credit = 0.001 USD)', () => {
    // 1M input at $3 + 1M output at $15 = $18 = 18,000 credits.
    expect(priceTokens({ input: 3, output: 15 }, 1_000_000, 1_000_000)).toBe(18_000);
    // The mock: 0.1 / 0.2 USD per M; 10 in + 5 out = 0.000002 USD = 0.002 credits.
    expect(priceTokens({ input: 0.1, output: 0.2 }, 10, 5)).toBe(0.002);
    expect(priceTokens(undefined, 10, 5)).toBe(0);
    expect(priceTokens({ output: 1000 }, 10, 5)).toBe(5);
  });

  it('bills cache reads and writes at their own prices, else at the input price', () => {
    const claude = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    // 1M input of which 600k cache reads and 100k cache writes: 300k × 3 + 600k × 0.3 + 100k × 3.75 = $1.455.
    expect(priceTokens(claude, 1_000_000, 0, 1, { read: 600_000, write: 100_000 })).toBe(1455);
    // Without cache prices the cached tokens cost the input price.
    expect(priceTokens({ input: 3, output: 15 }, 1_000_000, 0, 1, { read: 600_000, write: 100_000 })).toBe(3000);
    // Counts beyond the input (a confused upstream) never make the input negative.
    expect(priceTokens(claude, 100, 0, 1, { read: 1_000 })).toBe(priceTokens(claude, 100, 0, 1, { read: 100 }));
    expect(priceTokens(claude, 1_000_000, 0, 0.5, { read: 1_000_000 })).toBe(150);
  });

  it('tells an unpriced model (no price at all) from a free one (explicit zeros)', () => {
    expect(hasPrice(undefined)).toBe(false);
    expect(hasPrice({})).toBe(false);
    expect(hasPrice({ input: 0, output: 0 })).toBe(true);
    expect(isPriced({ input: 0, output: 0 })).toBe(false);
    expect(hasPrice({ image: 0.04 })).toBe(true);
    // A web search price alone (the google plugin's on every Gemini id) is an add-on, not the model's price.
    expect(hasPrice({ webSearch: 0.035, webSearchesPerAnswer: 1 })).toBe(false);
    expect(hasPrice({ input: 0.3, webSearch: 0.035 })).toBe(true);
    expect(isPriced({ webSearch: 0.035 })).toBe(false);
  });

  it('applies a factor (batch half price, fallback discount)', () => {
    expect(priceTokens({ input: 1000, output: 1000 }, 10, 10, 0.5)).toBe(10);
    expect(priceTokens({ input: 1000, output: 1000 }, 10, 10, 0.5 * (1 - 0.2))).toBe(8);
  });

  it('reads a fallback discount as a fraction off, clamped to [0, 1]', () => {
    expect(discountOf({})).toBe(0);
    expect(discountOf({ fallback: { discount: 0.25 } })).toBe(0.25);
    expect(discountOf({ fallback: { discount: 3 } })).toBe(1);
    expect(discountOf({ fallback: { discount: -1 } })).toBe(0);
    expect(discountOf({ fallback: { discount: 'x' } })).toBe(0);
  });

  it('takes the highest price across providers', () => {
    expect(maxPricing([{ input: 1, output: 5 }, undefined, { input: 2, output: 3, image: 0.04 }])).toEqual({ input: 2, output: 5, cacheRead: 2, cacheWrite: 2, cacheWrite1h: 4, image: 0.04, speechChars: 0, audioMinute: 0, perSecond: 0, perJob: 0, webSearch: 0 });
    // Searches billed per answer: the bound holds only when every model with a search price states one (the highest).
    expect(maxPricing([{ webSearch: 0.035, webSearchesPerAnswer: 1 }, { input: 1 }])?.webSearchesPerAnswer).toBe(1);
    expect(maxPricing([{ webSearch: 0.035, webSearchesPerAnswer: 1 }, { webSearch: 0.014, webSearchesPerAnswer: 2 }])?.webSearchesPerAnswer).toBe(2);
    expect(maxPricing([{ webSearch: 0.035, webSearchesPerAnswer: 1 }, { webSearch: 0.014 }])?.webSearchesPerAnswer).toBeUndefined();
    expect(maxPricing([undefined])).toBeUndefined();
  });

  it('prices media per image, per million speech characters and per audio minute', () => {
    expect(priceMedia({ image: 0.04 }, { images: 3 })).toBe(120);
    expect(priceMedia({ speechChars: 15 }, { speechCharacters: 2000 })).toBe(30);
    expect(priceMedia({ audioMinute: 0.006 }, { audioSeconds: 90 })).toBe(9);
    expect(priceMedia({ image: 0.04 }, { images: 2 }, 0.5)).toBe(40);
    expect(priceMedia(undefined, { images: 2 })).toBe(0);
    expect(priceMedia({ image: 1 }, undefined)).toBe(0);
    // Jobs: per second made and per job; what the provider said it charged wins over both.
    expect(priceMedia({ perSecond: 0.1, perJob: 0.05 }, { mediaSeconds: 4, jobs: 1 })).toBe(450);
    expect(priceMedia({ perSecond: 0.1 }, { mediaSeconds: 4, jobs: 1, providerUsd: 0.25 })).toBe(250);
    expect(priceMedia(undefined, { providerUsd: 0.25 }, 0.5)).toBe(125);
    expect(mediaUnitsOf({ media: { images: 2 } })).toEqual({ images: 2 });
    expect(mediaUnitsOf({})).toBeUndefined();
    expect(isPriced({ input: 0, speechChars: 15 })).toBe(true);
    expect(isPriced({ input: 0, output: 0 })).toBe(false);
    expect(isPriced(undefined)).toBe(false);
  });

  it('rounds credits to a millionth and converts to USD', () => {
    expect(roundCredits(0.1 + 0.2)).toBe(0.3);
    expect(creditsToUsd(1234.5)).toBe(1.2345);
  });

  it('has defaults and rejects unknown billing keys', () => {
    expect(billingConfigSchema.parse(undefined)).toEqual({ enforce: true, reserveOutputTokens: 4096, reserveWebSearches: 5, ledgerSyncMs: 1000, ledgerGroupMs: 2, unpriced: 'free' });
    expect(billingConfigSchema.safeParse({ enfrce: false }).success).toBe(false);
  });
});
