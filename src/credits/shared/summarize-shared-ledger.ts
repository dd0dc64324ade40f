import type { AccountRecord, CreditsRepo } from '../../store/index.ts';
import { UsageIndex } from '../../usage/index.ts';
import type { CreditsUsage, UsageSummary } from '../types.ts';

/**
 * The usage of `accounts` from the shared ledger, summed per day by the database. Balances in
 * the database are current (no replay checkpoint): nothing is unbilled.
 */
export async function summarizeSharedLedger(repo: CreditsRepo, accounts: readonly AccountRecord[]): Promise<UsageSummary> {
  const ids = new Set(accounts.map((a) => a.id));
  const summary: UsageSummary = { usage: new UsageIndex(), requests: new Map(), unbilled: new Map() };
  for (const row of await repo.usageTotals(accounts.length === 1 ? { accountId: accounts[0].id } : {})) {
    if (!ids.has(row.accountId)) continue;
    summary.usage.addTotals(row);
    summary.requests.set(row.accountId, (summary.requests.get(row.accountId) ?? 0) + row.requests);
  }
  return summary;
}

/** The usage view of the shared ledger without opening the credit engine (a CLI that holds the data dir). */
export function sharedLedgerUsage(repo: CreditsRepo): CreditsUsage {
  return { summarizeUsage: (accounts) => summarizeSharedLedger(repo, accounts) };
}
