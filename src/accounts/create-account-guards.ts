import { billingConfigSchema } from '../billing/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { CreditsPort } from '../credits/index.ts';
import { createRateLimitStore, rateLimitConfigSchema, type RateLimitStore } from '../limits/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { StorageHealth, Store } from '../store/index.ts';
import { systemClock, type Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import { AccountGuards } from './account-guards.ts';

export interface CreateAccountGuardsOptions {
  config: GatewayConfig;
  store: Store;
  registry: ProviderRegistry;
  clock: Clock;
  log: Logger;
  /** The credit engine the composition root chose (src/app/open-credits.ts); the guards own it from here (closed with them). */
  credits: CreditsPort;
  /** Whether the data dir can be written (shared with the credit engine and the routes that write records). */
  storage: StorageHealth;
  /** A limiter to use instead of the one `limits.store` names (tests, benchmarks). */
  limiter?: RateLimitStore;
}

/** Builds the account guards from the config: the limiter, over the credit engine it is given. */
export async function createAccountGuards(options: CreateAccountGuardsOptions): Promise<AccountGuards> {
  // The config is parsed already: parsing `limits` again would merge the default endpoint limits
  // back over the ones an operator lifted with null.
  const limits = options.config.limits ?? rateLimitConfigSchema.parse({});
  const billing = billingConfigSchema.parse(options.config.billing ?? {});
  const limiter: RateLimitStore = options.limiter ?? createRateLimitStore(limits, { log: (message) => options.log.warn(message) });
  // Requests arriving before Redis answers would all meet the failure policy; wait briefly.
  if (limiter.ready && !(await limiter.ready(2_000))) {
    options.log.warn(`rate-limit store: Redis not reachable at startup; applying fail-${limiter.onError ?? 'open'} policy until it is`);
  }
  const clock = options.clock;
  return new AccountGuards({
    limits,
    billing,
    limiter,
    store: options.store,
    registry: options.registry,
    credits: options.credits,
    storage: options.storage,
    clock,
    log: options.log,
    routing: options.config.routing,
    // A moved clock (tests) must move the windows too; the real clock leaves time to the store.
    limiterNow: clock === systemClock ? undefined : () => clock.now(),
  });
}
