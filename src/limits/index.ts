export type {
  ConcurrencyLease,
  LimitScope,
  LimitSource,
  LimitSubject,
  RateLimitResult,
  RateLimitStore,
  ResolvedConcurrency,
  ResolvedLimit,
  StoreErrorPolicy,
  Tier,
} from './types.ts';
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from './memory-rate-limit-store.ts';
export { SlidingLog } from './sliding-log.ts';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './redis-rate-limit-store.ts';
export { createRateLimitStore, type CreateRateLimitStoreOptions } from './create-rate-limit-store.ts';
export {
  DEFAULT_ENDPOINT_LIMITS,
  limitsStoreSchema,
  rateLimitConfigSchema,
  type EndpointLimit,
  type LimitsStoreConfig,
  type LimitsStoreConfigInput,
  type RateLimitConfig,
  type RateLimitConfigInput,
} from '../config/index.ts';
export { resolveConcurrency, resolveLimit } from './resolve-limit.ts';
export { apiKeySlotKeys } from './limiter-keys.ts';
export { isExemptRoute, isGenerationRoute, normalizePath } from './classify-route.ts';
export { normalizeIp } from './normalize-ip.ts';
export {
  buildRateLimitHeaders,
  concurrencyExceededError,
  priorityForTier,
  rateLimitExceededError,
  retryAfterSeconds,
  type RateLimitHeaderInput,
} from './build-rate-limit-headers.ts';
