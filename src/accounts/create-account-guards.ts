import { billingConfigSchema, CreditBook } from '../billing/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import { createRateLimitStore, rateLimitConfigSchema, RedisRateLimitStore, type RateLimitStore } from '../limits/index.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { Store } from '../store/repositories.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import { AccountGuards } from './account-guards.ts';
import { openLedgerAndReplay } from './replay-ledger.ts';

export interface CreateAccountGuardsOptions {
  config: GatewayConfig;
  store: Store;
  registry: ProviderRegistry;
  clock: Clock;
  log: Logger;
  dataDir: string;
  /** A limiter to use instead of the one `limits.store` names (tests, benchmarks). */
  limiter?: RateLimitStore;
}

/** Builds the account guards from the config: limiter, ledger (replayed into the store), credit book. */
export async function createAccountGuards(options: CreateAccountGuardsOptions): Promise<AccountGuards> {
  const limits = rateLimitConfigSchema.parse(options.config.limits ?? {});
  const billing = billingConfigSchema.parse(options.config.billing ?? {});
  const { ledger, usage, report } = await openLedgerAndReplay(options.store, options.dataDir, { syncIntervalMs: billing.ledgerSyncMs });
  if (report.applied > 0) {
    options.log.info('usage ledger replayed into balances', { lines: report.applied, credits: report.appliedCredits });
  }
  const limiter = options.limiter ?? createRateLimitStore(limits, { log: (message) => options.log.warn(message) });
  // Requests arriving before Redis answers would all meet the failure policy; wait briefly.
  if (limiter instanceof RedisRateLimitStore && !(await limiter.ready(2_000))) {
    options.log.warn(`rate-limit store: Redis not reachable at startup; applying fail-${limiter.onError} policy until it is`);
  }
  const clock = options.clock;
  return new AccountGuards({
    limits,
    billing,
    limiter,
    store: options.store,
    registry: options.registry,
    ledger,
    usage,
    credits: new CreditBook(options.store),
    clock,
    log: options.log,
    routing: options.config.routing,
    // A moved clock (tests) must move the windows too; the real clock leaves time to the store.
    limiterNow: clock === systemClock ? undefined : () => clock.now(),
  });
}
