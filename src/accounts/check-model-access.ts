import { hasPrice, maxPricing } from '../billing/index.ts';
import { GatewayError } from '../errors/index.ts';
import type { ModelPricing } from '../plugin-kit/index.ts';
import type { CatalogModel, ProviderRegistry } from '../providers/index.ts';
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

/** The terms of one candidate list, apart from the account's tier; `size` is the list's length when they were read. */
interface CandidateTerms {
  size: number;
  minTier: Tier | undefined;
  terms: ModelTerms;
}

const NO_TERMS: ModelTerms = Object.freeze({ pricing: undefined, maxOutputTokens: undefined });

/**
 * Terms per candidate list (the registry's, fixed once it is built; a list that grew is read
 * again): the loop, the price merge and their arrays ran on every admission for the same answer.
 */
const termsOfList = new WeakMap<readonly CatalogModel[], CandidateTerms>();

function termsOf(candidates: readonly CatalogModel[]): CandidateTerms {
  const known = termsOfList.get(candidates);
  if (known && known.size === candidates.length) return known;
  let minTier: Tier | undefined;
  let maxOutputTokens: number | undefined;
  for (const c of candidates) {
    const t = c.spec.minTier;
    if (t && (!minTier || TIER_RANK[t] > TIER_RANK[minTier])) minTier = t;
    const cap = c.spec.maxOutputTokens;
    if (cap !== undefined) maxOutputTokens = Math.max(maxOutputTokens ?? 0, cap);
  }
  const unpriced = candidates.find((c) => !hasPrice(c.spec.pricing))?.id;
  const terms: ModelTerms = Object.freeze({ pricing: maxPricing(candidates.map((c) => c.spec.pricing)), maxOutputTokens, unpriced });
  const read = { size: candidates.length, minTier, terms };
  termsOfList.set(candidates, read);
  return read;
}

/**
 * Prices and tier terms of a requested model id across every provider that may serve it
 * (the highest price and strictest tier, since routing may pick any), `mayServe` when given (its
 * fallback chain with it). An unknown model
 * yields no terms: the pipeline answers model_not_found itself. The terms are shared: read them, never change them.
 */
export function modelTerms(registry: ProviderRegistry, model: string | undefined, tier: Tier, mayServe?: readonly CatalogModel[]): ModelTerms {
  if (!model) return NO_TERMS;
  // Every model that may serve it (the configured fallback chain too): the hold is the worst case of any of them.
  let candidates = mayServe !== undefined && mayServe.length > 0 ? mayServe : undefined;
  try {
    candidates ??= registry.resolve(model).candidates;
  } catch {
    return NO_TERMS;
  }
  const { minTier, terms } = termsOf(candidates);
  if (minTier && TIER_RANK[tier] < TIER_RANK[minTier]) {
    throw new GatewayError('model_tier_restricted', `The model '${model}' needs the ${minTier} tier or higher; this account is on ${tier}.`, {
      details: { model, required_tier: minTier, tier },
    });
  }
  return terms;
}

/**
 * 403 model_tier_restricted when a model the request may be served by (its configured fallback
 * chain too) needs a higher tier than the account's, as a key's model scope covers the chain:
 * else a failing first model handed the account one its tier may not use.
 */
export function checkServedTier(requested: string, mayServe: ReadonlyArray<{ id: string; spec?: { minTier?: Tier } }>, tier: Tier): void {
  for (const model of mayServe) {
    const minTier = model.spec?.minTier;
    if (!minTier || TIER_RANK[tier] >= TIER_RANK[minTier]) continue;
    const which = model.id === requested ? `The model '${requested}' needs` : `The model '${requested}' may be served by '${model.id}', which needs`;
    throw new GatewayError('model_tier_restricted', `${which} the ${minTier} tier or higher; this account is on ${tier}.`, {
      details: { model: requested, not_allowed: model.id, required_tier: minTier, tier },
    });
  }
}
