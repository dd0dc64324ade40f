import type { LimitsStoreConfigInput } from '../config/index.ts';
import { limitsStoreSchema } from '../config/index.ts';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import { RedisRateLimitStore } from './redis-rate-limit-store.ts';

export interface CreateRateLimitStoreOptions {
  /** Outage notices of the Redis store (default console.warn). */
  log?: (message: string) => void;
}

/** Builds the store `limits.store` names: in-memory for one process, Redis for several. */
export function createRateLimitStore(
  config: { store?: LimitsStoreConfigInput } = {},
  options: CreateRateLimitStoreOptions = {},
): MemoryRateLimitStore | RedisRateLimitStore {
  const store = limitsStoreSchema.parse(config.store);
  if (store === 'memory') return new MemoryRateLimitStore();
  return new RedisRateLimitStore({
    url: store.redis,
    prefix: store.prefix,
    onError: store.onError,
    commandTimeoutMs: store.commandTimeoutMs,
    log: options.log,
  });
}
