import path from 'node:path';
import { unsentSettlements, type Store } from '../../store/index.ts';
import type { Clock } from '../../util/index.ts';
import type { Logger } from '../../util/index.ts';
import { CreditBook } from './credit-book.ts';
import { InProcessCredits } from './in-process-credits.ts';
import { openLedgerAndReplay, type ReplayReport } from './replay-ledger.ts';

export interface OpenInProcessCreditsOptions {
  store: Store;
  dataDir: string;
  clock: Clock;
  log: Logger;
  /** `billing.enforce`. */
  enforce: boolean;
  storage: { failed(error: unknown, what: string): void };
  /** `billing.ledgerSyncMs` / `billing.ledgerGroupMs` for usage.jsonl. */
  syncIntervalMs?: number;
  groupCommitMs?: number;
}

/**
 * Opens the in-process credit engine of a data dir: refuses a data dir whose settlement outbox
 * still holds charges for PostgreSQL, then opens usage.jsonl and replays it into the store's
 * balances and the usage aggregates (saying what it could not replay).
 */
export async function openInProcessCredits(o: OpenInProcessCreditsOptions): Promise<InProcessCredits> {
  // Answered charges of a run on PostgreSQL that never reached it: nothing here would send them.
  const unsent = unsentSettlements(o.dataDir);
  if (unsent > 0) {
    throw new Error(
      `credits: ${unsent} settlement(s) in ${path.join(o.dataDir, 'settlements.jsonl')} never reached PostgreSQL; start this data dir with the store.postgres it last used so they are charged (or move the file away to give them up)`,
    );
  }
  const { ledger, usage, report } = await openLedgerAndReplay(o.store, o.dataDir, { syncIntervalMs: o.syncIntervalMs, groupCommitMs: o.groupCommitMs });
  reportReplay(report, o.log);
  if (report.applied > 0) o.log.info('usage ledger replayed into balances', { lines: report.applied, credits: report.appliedCredits });
  return new InProcessCredits({ store: o.store, book: new CreditBook(o.store), ledger, usage, enforce: o.enforce, storage: o.storage, clock: o.clock, log: o.log });
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
