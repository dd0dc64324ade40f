export { billingConfigSchema, type BillingConfig, type BillingConfigInput } from '../config/index.ts';
export { MAX_BALANCE, applyGrant, balanceSchema, boundBalance, boundedDelta, creditDeltaSchema } from './balance-bounds.ts';
export {
  CACHE_WRITE_1H_INPUT_MULTIPLIER,
  USD_PER_CREDIT,
  creditsToUsd,
  discountOf,
  hasPrice,
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
