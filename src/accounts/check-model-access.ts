import { hasPrice, maxPricing } from '../billing/index.ts';
import { GatewayError } from '../errors/index.ts';
import type { ModelPricing } from '../plugin-kit/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { Tier } from '../store/index.ts';

const TIER_RANK: Record<Tier, number> = { free: 0, basic: 1, fellow: 2, pro: 3, enterprise: 4 };

/** What billing needs to know about the model a request names. */
export interface ModelTerms {
  pricing: ModelPricing | undefined;
  /** The model's own output cap, when it declares one. */
  maxOutputTokens: number | undefined;
  /** Set when a provider that may serve the request has no price for the model. */
  unpriced?: string;
}

/**
 * Prices and tier terms of a requested model id across every provider that may serve it
 * (the highest price and strictest tier, since routing may pick any). An unknown model
 * yields no terms: the pipeline answers model_not_found itself.
 */
export function modelTerms(registry: ProviderRegistry, model: string | undefined, tier: Tier): ModelTerms {
  if (!model) return { pricing: undefined, maxOutputTokens: undefined };
  let candidates;
  try {
    candidates = registry.resolve(model).candidates;
  } catch {
    return { pricing: undefined, maxOutputTokens: undefined };
  }
  let minTier: Tier | undefined;
  let maxOutputTokens: number | undefined;
  for (const c of candidates) {
    const t = c.spec.minTier;
    if (t && (!minTier || TIER_RANK[t] > TIER_RANK[minTier])) minTier = t;
    const cap = c.spec.maxOutputTokens;
    if (cap !== undefined) maxOutputTokens = Math.max(maxOutputTokens ?? 0, cap);
  }
  if (minTier && TIER_RANK[tier] < TIER_RANK[minTier]) {
    throw new GatewayError('model_tier_restricted', `The model '${model}' needs the ${minTier} tier or higher; this account is on ${tier}.`, {
      details: { model, required_tier: minTier, tier },
    });
  }
  const unpriced = candidates.find((c) => !hasPrice(c.spec.pricing))?.id;
  return { pricing: maxPricing(candidates.map((c) => c.spec.pricing)), maxOutputTokens, unpriced };
}
