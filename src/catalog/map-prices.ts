import type { ModelPricing } from '../plugin-kit/index.ts';

/** A price as `@pydantic/genai-prices` writes it: a number, or a base price with volume tiers. */
type PackagePrice = number | { base: number; tiers?: unknown } | undefined;

/** genai-prices keys (USD per unit named by the suffix) → our pricing fields, with a factor to our units. */
const KEYS: Array<[key: string, field: keyof ModelPricing, factor: number]> = [
  ['input_mtok', 'input', 1],
  ['output_mtok', 'output', 1],
  ['cache_read_mtok', 'cacheRead', 1],
  ['cache_write_mtok', 'cacheWrite', 1],
  // USD per hour of audio → per minute.
  ['input_audio_hours', 'audioMinute', 1 / 60],
  ['audio_hours', 'audioMinute', 1 / 60],
];

function baseOf(price: PackagePrice): number | undefined {
  if (typeof price === 'number') return Number.isFinite(price) && price >= 0 ? price : undefined;
  if (price && typeof price === 'object' && typeof price.base === 'number') return price.base;
  return undefined;
}

/**
 * A genai-prices model price (already chosen for today's date) → ModelPricing. Volume tiers
 * (e.g. Claude's price above 200k input tokens) are read at their base price.
 */
export function mapPackagePrices(prices: Record<string, unknown>): ModelPricing | undefined {
  const out: ModelPricing = {};
  for (const [key, field, factor] of KEYS) {
    if (out[field] !== undefined) continue;
    const base = baseOf(prices[key] as PackagePrice);
    if (base !== undefined) out[field] = roundPrice(base * factor);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** models.dev `cost` (USD per million tokens) → ModelPricing. */
export function mapModelsDevCost(cost: Record<string, unknown> | undefined): ModelPricing | undefined {
  if (!cost) return undefined;
  const out: ModelPricing = {};
  const take = (key: string, field: keyof ModelPricing) => {
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
