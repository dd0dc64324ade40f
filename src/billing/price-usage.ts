import type { ModelPricing } from '../plugin-kit/types.ts';

/** Spec §1: 1 credit = 0.001 USD. */
export const USD_PER_CREDIT = 0.001;

/** Credits kept to a millionth, so sums of tiny charges do not drift. */
export function roundCredits(credits: number): number {
  return Math.round(credits * 1e6) / 1e6;
}

/** Credits → USD (to a billionth of a dollar). */
export function creditsToUsd(credits: number): number {
  return Math.round(credits * USD_PER_CREDIT * 1e9) / 1e9;
}

/**
 * Credits for token counts at USD-per-million-token prices, times `factor`
 * (a fallback discount and the batch half price multiply in here).
 */
export function priceTokens(pricing: ModelPricing | undefined, inputTokens: number, outputTokens: number, factor = 1): number {
  if (!pricing) return 0;
  const usd = (inputTokens * (pricing.input ?? 0) + outputTokens * (pricing.output ?? 0)) / 1_000_000;
  return roundCredits((usd / USD_PER_CREDIT) * factor);
}

/** The stricter of several prices (the reservation must cover whichever provider serves). */
export function maxPricing(prices: Array<ModelPricing | undefined>): ModelPricing | undefined {
  let out: ModelPricing | undefined;
  for (const p of prices) {
    if (!p) continue;
    out = { input: Math.max(out?.input ?? 0, p.input ?? 0), output: Math.max(out?.output ?? 0, p.output ?? 0) };
  }
  return out;
}

/** A fallback discount read from a settlement: a fraction off in [0, 1], else 0. */
export function discountOf(settlement: object): number {
  const fallback = (settlement as { fallback?: { discount?: unknown } }).fallback;
  const d = fallback?.discount;
  return typeof d === 'number' && Number.isFinite(d) ? Math.min(1, Math.max(0, d)) : 0;
}
