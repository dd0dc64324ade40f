import type { ModelPricing, PriceTier } from '../plugin-kit/index.ts';

/** A price as `@pydantic/genai-prices` writes it: a number, or a base price with volume tiers. */
type PackagePrice = number | { base: number; tiers?: unknown } | undefined;

/** Token prices that have long-context tiers in genai-prices → our tier fields. */
const TIERED_KEYS: Array<[key: string, field: keyof Omit<PriceTier, 'aboveInputTokens'>]> = [
  ['input_mtok', 'input'],
  ['output_mtok', 'output'],
  ['cache_read_mtok', 'cacheRead'],
  ['cache_write_mtok', 'cacheWrite'],
  ['cache_write_1h_mtok', 'cacheWrite1h'],
];

/** genai-prices keys (USD per unit named by the suffix) → our pricing fields, with a factor to our units. */
const KEYS: Array<[key: string, field: keyof Omit<ModelPricing, 'tiers'>, factor: number]> = [
  ['input_mtok', 'input', 1],
  ['output_mtok', 'output', 1],
  ['cache_read_mtok', 'cacheRead', 1],
  ['cache_write_mtok', 'cacheWrite', 1],
  ['cache_write_1h_mtok', 'cacheWrite1h', 1],
  // USD per hour of audio → per minute.
  ['input_audio_hours', 'audioMinute', 1 / 60],
  ['audio_hours', 'audioMinute', 1 / 60],
  // USD per thousand hosted web searches → per search.
  ['web_searches_kcount', 'webSearch', 1 / 1000],
];

function baseOf(price: PackagePrice): number | undefined {
  if (typeof price === 'number') return Number.isFinite(price) && price >= 0 ? price : undefined;
  if (price && typeof price === 'object' && typeof price.base === 'number') return price.base;
  return undefined;
}

/** The `{start, price}` tiers of one genai-prices value, well-formed ones only. */
function tiersOf(price: PackagePrice): Array<{ start: number; price: number }> {
  if (!price || typeof price !== 'object' || !Array.isArray(price.tiers)) return [];
  return (price.tiers as unknown[]).flatMap((t) => {
    const { start, price: p } = (t ?? {}) as { start?: unknown; price?: unknown };
    return Number.isSafeInteger(start) && (start as number) >= 0 && typeof p === 'number' && Number.isFinite(p) && p >= 0 ? [{ start: start as number, price: p }] : [];
  });
}

/**
 * genai-prices' long-context tiers grouped by threshold. genai-prices applies a tier to the
 * whole request once its input tokens (cache reads and writes included) pass `start`, and
 * for every price that has the tier — the same rule as Google's and Anthropic's pages.
 */
function mapPackageTiers(prices: Record<string, unknown>): PriceTier[] {
  const byStart = new Map<number, PriceTier>();
  for (const [key, field] of TIERED_KEYS) {
    for (const { start, price } of tiersOf(prices[key] as PackagePrice)) {
      const tier = byStart.get(start) ?? { aboveInputTokens: start };
      tier[field] = roundPrice(price);
      byStart.set(start, tier);
    }
  }
  return [...byStart.values()].sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
}

/**
 * A genai-prices model price (already chosen for today's date) → ModelPricing: base prices,
 * and the long-context tiers (Gemini 2.5 Pro, Claude Sonnet 4.5 above 200k input tokens) in `tiers`.
 */
export function mapPackagePrices(prices: Record<string, unknown>): ModelPricing | undefined {
  const out: ModelPricing = {};
  for (const [key, field, factor] of KEYS) {
    if (out[field] !== undefined) continue;
    const base = baseOf(prices[key] as PackagePrice);
    if (base !== undefined) out[field] = roundPrice(base * factor);
  }
  const tiers = mapPackageTiers(prices);
  if (tiers.length > 0) out.tiers = tiers;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** models.dev `cost` (USD per million tokens) → ModelPricing. */
export function mapModelsDevCost(cost: Record<string, unknown> | undefined): ModelPricing | undefined {
  if (!cost) return undefined;
  const out: ModelPricing = {};
  const take = (key: string, field: keyof Omit<ModelPricing, 'tiers'>) => {
    const v = cost[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[field] = v;
  };
  take('input', 'input');
  take('output', 'output');
  take('cache_read', 'cacheRead');
  take('cache_write', 'cacheWrite');
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Prices kept to 12 significant digits, so unit conversions do not show float noise. */
function roundPrice(value: number): number {
  return Number(value.toPrecision(12));
}
