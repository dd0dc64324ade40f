export { billingConfigSchema, type BillingConfig, type BillingConfigInput } from '../config/index.ts';
export { MAX_BALANCE, applyGrant, balanceSchema, boundBalance, boundedDelta, creditDeltaSchema } from './balance-bounds.ts';
export {
  CACHE_WRITE_1H_INPUT_MULTIPLIER,
  USD_PER_CREDIT,
  creditsToUsd,
  discountOf,
  isPriced,
  maxPricing,
  mediaUnitsOf,
  priceMedia,
  priceTokens,
  priceWebSearches,
  pricingAt,
  roundCredits,
  type MediaUnits,
  type CacheTokens,
} from './price-usage.ts';
// Whether a model is priced at all is the catalog's word (billing.unpriced decides the rest).
export { hasPrice } from '../catalog/index.ts';
