import type { ModelPricing } from '../plugin-kit/index.ts';

/**
 * Prices added to a model's use rather than pricing it: a hosted web search (the google plugin
 * gives every Gemini id Google's grounding price, whether anyone priced its tokens or not).
 */
const ADD_ONS: ReadonlySet<string> = new Set(['webSearch', 'webSearchesPerAnswer']);

/** True for a pricing field that adds to a model's use (its web search) rather than pricing the model. */
export function isAddOnPrice(field: string): boolean {
  return ADD_ONS.has(field);
}

/**
 * True when a price was declared at all (an explicit 0 is a free model, not an unpriced one);
 * a web search price alone is not one, so `billing.unpriced` still decides such a model.
 */
export function hasPrice(pricing: ModelPricing | undefined): boolean {
  return Boolean(pricing && Object.entries(pricing).some(([field, value]) => typeof value === 'number' && !isAddOnPrice(field)));
}
