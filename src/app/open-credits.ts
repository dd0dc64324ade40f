import { createAccountGuards, type AccountGuards } from '../accounts/index.ts';
import { billingConfigSchema } from '../billing/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import { openInProcessCredits, openSharedCredits, type CreditsPort } from '../credits/index.ts';
import type { RateLimitStore } from '../limits/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import { StorageHealth, type Store } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';

export interface OpenCreditsOptions {
  config: GatewayConfig;
  store: Store;
  dataDir: string;
  clock: Clock;
  log: Logger;
  /** Whether the data dir can be written: both engines report a record they could not write. */
  storage: StorageHealth;
}

/**
 * Chooses the credit engine, once, from the store: shared through the database when the store
 * shares credits (PostgreSQL: holds, leased slices, the ledger live there), else in process (the
 * file store: the credit book and usage.jsonl). The only place that picks one.
 */
export function openCredits(o: OpenCreditsOptions): Promise<CreditsPort> {
  const billing = billingConfigSchema.parse(o.config.billing ?? {});
  const common = { dataDir: o.dataDir, clock: o.clock, log: o.log, enforce: billing.enforce, storage: o.storage, syncIntervalMs: billing.ledgerSyncMs, groupCommitMs: billing.ledgerGroupMs };
  if (o.store.credits) {
    const staleMs = o.config.store?.instanceStaleMs;
    return openSharedCredits({ ...common, repo: o.store.credits, flushMs: o.config.store?.flushMs, leaseIdleMs: o.config.store?.leaseIdleMs, staleMs, beatMs: staleMs && staleMs / 6 });
  }
  return openInProcessCredits({ ...common, store: o.store });
}

export interface OpenAccountGuardsOptions extends Omit<OpenCreditsOptions, 'storage'> {
  registry: ProviderRegistry;
  /** A limiter to use instead of the one `limits.store` names (tests, benchmarks). */
  limiter?: RateLimitStore;
}

/** The account guards over the credit engine the store calls for, sharing one view of whether the data dir can be written. */
export async function openAccountGuards(o: OpenAccountGuardsOptions): Promise<AccountGuards> {
  const storage = new StorageHealth(o.dataDir, (message, fields) => o.log.warn(message, fields));
  const credits = await openCredits({ ...o, storage });
  try {
    return await createAccountGuards({ config: o.config, store: o.store, registry: o.registry, clock: o.clock, log: o.log, credits, storage, limiter: o.limiter });
  } catch (error) {
    await credits.close();
    throw error;
  }
}
