import { boundedDelta, roundCredits, type BilledAccount } from '../billing/index.ts';
import type { Store } from '../store/repositories.ts';
import { UsageLedger, type LedgerEntry } from '../usage/ledger.ts';
import { UsageIndex } from '../usage/usage-index.ts';

/** What the startup replay found and fixed. */
export interface ReplayReport {
  entries: number;
  /** Ledger lines whose charge the store's snapshot did not hold yet (lost by a crash), now applied. */
  applied: number;
  appliedCredits: number;
}

/**
 * Opens the ledger of a data dir and brings the store up to it. Balances in the store
 * are written in batches and may lag; each account carries `billedSeq`, the last ledger
 * line its balance includes, so every later line of that account is charged again here.
 * Also rebuilds the usage aggregates.
 */
export async function openLedgerAndReplay(
  store: Store,
  dataDir: string,
  options: { syncIntervalMs?: number } = {},
): Promise<{ ledger: UsageLedger; usage: UsageIndex; report: ReplayReport }> {
  const usage = new UsageIndex();
  const accounts = new Map<string, BilledAccount>();
  for (const a of await store.accounts.list()) accounts.set(a.id, a as BilledAccount);
  const pending = new Map<string, { credits: number; seq: number }>();
  let entries = 0;
  let applied = 0;
  let appliedCredits = 0;
  const visit = (entry: LedgerEntry): void => {
    entries += 1;
    usage.add(entry);
    const account = accounts.get(entry.account_id);
    // Lines without seq predate billing (they never took credits).
    if (!account || typeof entry.seq !== 'number' || entry.seq <= (account.billedSeq ?? 0)) return;
    const charge = entry.charged_credits ?? 0;
    const p = pending.get(account.id) ?? { credits: 0, seq: 0 };
    p.credits += charge;
    p.seq = Math.max(p.seq, entry.seq);
    pending.set(account.id, p);
    applied += 1;
    appliedCredits += charge;
  };
  const ledger = UsageLedger.open(dataDir, { onEntry: visit, syncIntervalMs: options.syncIntervalMs });
  for (const [id, p] of pending) {
    // A corrupt line's charge must not leave a balance NaN or out of bounds.
    const delta = boundedDelta(accounts.get(id)!.credits, -roundCredits(p.credits));
    await store.accounts.adjustCredits(id, delta, { billedSeq: p.seq });
  }
  if (pending.size > 0) await store.flush();
  return { ledger, usage, report: { entries, applied, appliedCredits: roundCredits(appliedCredits) } };
}
