import path from 'node:path';
import { billingConfigSchema } from '../billing/index.ts';
import { CreditBook, openLedgerAndReplay, SharedCredits, type ReplayReport } from '../credits/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import { createRateLimitStore, rateLimitConfigSchema, RedisRateLimitStore, type RateLimitStore } from '../limits/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { Store } from '../store/index.ts';
import { StorageHealth, unsentSettlements } from '../store/index.ts';
import { systemClock, type Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import { AccountGuards } from './account-guards.ts';
import { UsageIndex } from '../usage/index.ts';

export interface CreateAccountGuardsOptions {
  config: GatewayConfig;
  store: Store;
  registry: ProviderRegistry;
  clock: Clock;
  log: Logger;
  dataDir: string;
  /** A limiter to use instead of the one `limits.store` names (tests, benchmarks). */
  limiter?: RateLimitStore;
  /** Whether the data dir can be written (shared with the routes that write records); made here when absent. */
  storage?: StorageHealth;
}

/** Builds the account guards from the config: limiter, ledger (replayed into the store), credit book. */
export async function createAccountGuards(options: CreateAccountGuardsOptions): Promise<AccountGuards> {
  // The config is parsed already: parsing `limits` again would merge the default endpoint limits
  // back over the ones an operator lifted with null.
  const limits = options.config.limits ?? rateLimitConfigSchema.parse({});
  const billing = billingConfigSchema.parse(options.config.billing ?? {});
  const storage = options.storage ?? new StorageHealth(options.dataDir, (message, fields) => options.log.warn(message, fields));
  let shared: SharedCredits | undefined;
  let ledger;
  let usage: UsageIndex;
  if (options.store.credits) {
    // Credits shared through the database: holds, ledger and aggregates live there (no JSONL ledger, no replay).
    shared = new SharedCredits({
      repo: options.store.credits,
      clock: options.clock,
      log: options.log,
      enforce: billing.enforce,
      dataDir: options.dataDir,
      storage,
      flushMs: options.config.store?.flushMs,
      leaseIdleMs: options.config.store?.leaseIdleMs,
      syncIntervalMs: billing.ledgerSyncMs,
      groupCommitMs: billing.ledgerGroupMs,
    });
    await shared.start();
    usage = new UsageIndex();
  } else {
    // Answered charges of a run on PostgreSQL that never reached it: nothing here would send them.
    const unsent = unsentSettlements(options.dataDir);
    if (unsent > 0) {
      throw new Error(
        `credits: ${unsent} settlement(s) in ${path.join(options.dataDir, 'settlements.jsonl')} never reached PostgreSQL; start this data dir with the store.postgres it last used so they are charged (or move the file away to give them up)`,
      );
    }
    const opened = await openLedgerAndReplay(options.store, options.dataDir, { syncIntervalMs: billing.ledgerSyncMs, groupCommitMs: billing.ledgerGroupMs });
    ({ ledger, usage } = opened);
    const report = opened.report;
    reportReplay(report, options.log);
    if (report.applied > 0) {
      options.log.info('usage ledger replayed into balances', { lines: report.applied, credits: report.appliedCredits });
    }
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
    shared,
    credits: new CreditBook(options.store),
    storage,
    clock,
    log: options.log,
    routing: options.config.routing,
    // A moved clock (tests) must move the windows too; the real clock leaves time to the store.
    limiterNow: clock === systemClock ? undefined : () => clock.now(),
  });
}

/** Start-up warnings for ledger lines that could not be charged: never dropped without a word. */
function reportReplay(report: ReplayReport, log: Logger): void {
  const bad = report.unreplayable;
  if (bad.count > 0) {
    log.warn(`usage ledger: ${bad.count} line(s) cannot be replayed (torn or garbage); their charges are not applied; kept aside in ${bad.keptIn ?? 'usage.rejected.jsonl'}`, {
      lines: bad.lines.slice(0, 20).map((n) => (n === -1 ? 'torn last line' : n)),
      seqs: bad.seqs.slice(0, 20),
      credits: bad.credits,
    });
  }
  if (report.unknownAccounts.count > 0) {
    log.warn(`usage ledger: ${report.unknownAccounts.count} line(s) belong to accounts that do not exist; counted in usage, charged to no balance`, { credits: report.unknownAccounts.credits });
  }
  if (report.gaps.length > 0) {
    log.warn('usage ledger: sequence numbers are missing (lines lost outside the gateway?)', { missing: report.gaps.slice(0, 20).map(([a, b]) => (a === b ? String(a) : `${a}-${b}`)) });
  }
}
