import { scanLedger, type AccountRecord } from '../../store/index.ts';
import { UsageIndex } from '../../usage/index.ts';
import type { CreditsUsage, UsageSummary } from '../types.ts';

/**
 * The usage of `accounts` from a usage ledger file (usage.jsonl), read once without holding
 * the event loop: every line of theirs, and what lines past each account's replay checkpoint
 * (`billedSeq`) charged that its stored balance does not include yet.
 */
export async function summarizeLedger(file: string, accounts: readonly AccountRecord[]): Promise<UsageSummary> {
  const checkpoint = new Map(accounts.map((a) => [a.id, a.billedSeq ?? 0]));
  const summary: UsageSummary = { usage: new UsageIndex(), requests: new Map(), unbilled: new Map() };
  await scanLedger(file, (entry) => {
    if (!checkpoint.has(entry.account_id)) return;
    summary.usage.add(entry);
    summary.requests.set(entry.account_id, (summary.requests.get(entry.account_id) ?? 0) + 1);
    if (typeof entry.seq === 'number' && entry.seq > (checkpoint.get(entry.account_id) ?? 0)) {
      summary.unbilled.set(entry.account_id, (summary.unbilled.get(entry.account_id) ?? 0) + (entry.charged_credits ?? 0));
    }
  });
  return summary;
}

/** The usage view of a file store's ledger without opening the credit engine (a CLI that holds the data dir). */
export function ledgerUsage(file: string): CreditsUsage {
  return { summarizeUsage: (accounts) => summarizeLedger(file, accounts) };
}
