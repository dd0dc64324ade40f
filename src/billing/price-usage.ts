import { isAddOnPrice } from '../catalog/index.ts';
import type { ModelPricing, PriceTier } from '../plugin-kit/index.ts';

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

/** Input tokens served from or written to the provider's prompt cache (both part of the input count). */
export interface CacheTokens {
  read?: number;
  write?: number;
  /** The writes kept for an hour (a subset of `write`). */
  write1h?: number;
}

/** A 1-hour cache write without a declared price costs this many times the input price (Anthropic's multiplier). */
export const CACHE_WRITE_1H_INPUT_MULTIPLIER = 2;

/** USD per million tokens written to a 1-hour prompt cache: the declared price, else 2 × input. */
function cacheWrite1hPrice(pricing: ModelPricing): number {
  return pricing.cacheWrite1h ?? CACHE_WRITE_1H_INPUT_MULTIPLIER * (pricing.input ?? 0);
}

/**
 * The token prices a request with `inputTokens` input tokens (cached included) pays: the
 * highest long-context tier it is above (over the base prices), else the base prices.
 */
export function pricingAt(pricing: ModelPricing | undefined, inputTokens: number): ModelPricing | undefined {
  let tier: PriceTier | undefined;
  for (const t of pricing?.tiers ?? []) if (inputTokens > t.aboveInputTokens && (!tier || t.aboveInputTokens > tier.aboveInputTokens)) tier = t;
  if (!pricing || !tier) return pricing;
  const { aboveInputTokens: _, ...prices } = tier;
  return { ...pricing, ...prices };
}

/**
 * Credits for token counts at USD-per-million-token prices, times `factor`
 * (a fallback discount and the batch half price multiply in here). `inputTokens` includes
 * cached tokens (the IR's convention); those are billed at `cacheRead` / `cacheWrite` where
 * the model has such prices, else at the input price; the 1-hour part of the writes at
 * `cacheWrite1hPrice`. Above a long-context tier's threshold
 * every token kind is billed at the tier's prices (`pricingAt`).
 */
export function priceTokens(base: ModelPricing | undefined, inputTokens: number, outputTokens: number, factor = 1, cache?: CacheTokens): number {
  const pricing = pricingAt(base, inputTokens);
  if (!pricing) return 0;
  const input = pricing.input ?? 0;
  const read = Math.max(0, Math.min(cache?.read ?? 0, inputTokens));
  const write = Math.max(0, Math.min(cache?.write ?? 0, inputTokens - read));
  const write1h = Math.max(0, Math.min(cache?.write1h ?? 0, write));
  const uncached = inputTokens - read - write;
  const writes = (write - write1h) * (pricing.cacheWrite ?? input) + (write1h ? write1h * cacheWrite1hPrice(pricing) : 0);
  const usd = (uncached * input + read * (pricing.cacheRead ?? input) + writes + outputTokens * (pricing.output ?? 0)) / 1_000_000;
  return roundCredits((usd / USD_PER_CREDIT) * factor);
}

/**
 * The stricter of several prices (the reservation must cover whichever provider serves),
 * long-context tiers included: at each threshold any of them has, the highest price there.
 */
export function maxPricing(prices: Array<ModelPricing | undefined>): ModelPricing | undefined {
  const out = maxFlatPricing(prices);
  // Most models have no long-context tier: no set, no sort on every admission.
  if (!out || !prices.some((p) => p?.tiers?.length)) return out;
  const starts = [...new Set(prices.flatMap((p) => p?.tiers?.map((t) => t.aboveInputTokens) ?? []))].sort((a, b) => a - b);
  out.tiers = starts.map((start) => {
    const at = maxFlatPricing(prices.map((p) => p && pricingAt(p, start + 1)));
    return { aboveInputTokens: start, input: at?.input, output: at?.output, cacheRead: at?.cacheRead, cacheWrite: at?.cacheWrite, cacheWrite1h: at?.cacheWrite1h };
  });
  return out;
}

function maxFlatPricing(prices: Array<ModelPricing | undefined>): ModelPricing | undefined {
  let out: Required<Omit<ModelPricing, 'tiers' | 'webSearchesPerAnswer'>> & Pick<ModelPricing, 'webSearchesPerAnswer'> | undefined;
  for (const p of prices) {
    if (!p) continue;
    const o = out ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, image: 0, speechChars: 0, audioMinute: 0, perSecond: 0, perJob: 0, webSearch: 0 };
    out = {
      input: Math.max(o.input, p.input ?? 0),
      output: Math.max(o.output, p.output ?? 0),
      cacheRead: Math.max(o.cacheRead, p.cacheRead ?? p.input ?? 0),
      cacheWrite: Math.max(o.cacheWrite, p.cacheWrite ?? p.input ?? 0),
      cacheWrite1h: Math.max(o.cacheWrite1h, cacheWrite1hPrice(p)),
      image: Math.max(o.image, p.image ?? 0),
      speechChars: Math.max(o.speechChars, p.speechChars ?? 0),
      audioMinute: Math.max(o.audioMinute, p.audioMinute ?? 0),
      perSecond: Math.max(o.perSecond, p.perSecond ?? 0),
      perJob: Math.max(o.perJob, p.perJob ?? 0),
      webSearch: Math.max(o.webSearch, p.webSearch ?? 0),
    };
  }
  const perAnswer = searchesPerAnswer(prices);
  if (out && perAnswer !== undefined) out.webSearchesPerAnswer = perAnswer;
  return out;
}

/**
 * The most searches one answer of any of these models is billed for: the highest bound, only
 * when every model with a search price states one (one without a bound leaves it unbounded).
 */
function searchesPerAnswer(prices: Array<ModelPricing | undefined>): number | undefined {
  let bound: number | undefined;
  for (const p of prices) {
    if (!p?.webSearch) continue;
    if (p.webSearchesPerAnswer === undefined) return undefined;
    bound = Math.max(bound ?? 0, p.webSearchesPerAnswer);
  }
  return bound;
}

/**
 * Credits for the hosted web searches an upstream ran (`usage.webSearchRequests`): USD per
 * search (`pricing.webSearch`), times `factor`; 0 without a count or a price. Not tiered: a
 * long-context tier changes token prices only.
 */
export function priceWebSearches(pricing: ModelPricing | undefined, searches: number | undefined, factor = 1): number {
  if (!pricing?.webSearch || !searches || !(searches > 0)) return 0;
  return roundCredits(((searches * pricing.webSearch) / USD_PER_CREDIT) * factor);
}

/** A fallback discount read from a settlement: a fraction off in [0, 1], else 0. */
export function discountOf(settlement: object): number {
  const fallback = (settlement as { fallback?: { discount?: unknown } }).fallback;
  const d = fallback?.discount;
  return typeof d === 'number' && Number.isFinite(d) ? Math.min(1, Math.max(0, d)) : 0;
}

/** Units of a media call, priced per item (the media routes put them on the settlement). */
export interface MediaUnits {
  images?: number;
  speechCharacters?: number;
  audioSeconds?: number;
  /** Seconds of generated video or music (jobs). */
  mediaSeconds?: number;
  /** Generation jobs. */
  jobs?: number;
  /** What the provider said it charged (USD); replaces the per-item price when present. */
  providerUsd?: number;
}

/** Credits for media units: USD per image, per million speech characters, per audio minute; times `factor`. */
export function priceMedia(pricing: ModelPricing | undefined, units: MediaUnits | undefined, factor = 1): number {
  if (!units) return 0;
  if (units.providerUsd !== undefined) return roundCredits((units.providerUsd / USD_PER_CREDIT) * factor);
  if (!pricing) return 0;
  const usd =
    (units.mediaSeconds ?? 0) * (pricing.perSecond ?? 0) +
    (units.jobs ?? 0) * (pricing.perJob ?? 0) +
    (units.images ?? 0) * (pricing.image ?? 0) +
    ((units.speechCharacters ?? 0) * (pricing.speechChars ?? 0)) / 1_000_000 +
    ((units.audioSeconds ?? 0) / 60) * (pricing.audioMinute ?? 0);
  return roundCredits((usd / USD_PER_CREDIT) * factor);
}

/** Media units read from a settlement, when the route attached them. */
export function mediaUnitsOf(settlement: object): MediaUnits | undefined {
  const media = (settlement as { media?: unknown }).media;
  return media && typeof media === 'object' ? (media as MediaUnits) : undefined;
}

/**
 * True when the pricing charges any use of the model at all; a web search price alone does not
 * (only a request that searches pays it: the hold prices those searches itself).
 */
export function isPriced(pricing: ModelPricing | undefined): boolean {
  return Boolean(pricing && Object.entries(pricing).some(([field, v]) => typeof v === 'number' && v > 0 && !isAddOnPrice(field)));
}
