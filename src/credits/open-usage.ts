import { ledgerFileOf, type Store } from '../store/index.ts';
import { ledgerUsage } from './in-process/index.ts';
import { sharedLedgerUsage } from './shared/index.ts';
import type { CreditsUsage } from './types.ts';

/**
 * The usage view of the credits the store calls for, without opening the engine (a CLI that
 * holds the data dir runs no admissions): the shared ledger in the database, else usage.jsonl.
 * Here, not in src/app beside the engine's choice, so a CLI command reaches it without the server.
 */
export function openCreditsUsage(o: { store: Store; dataDir: string }): CreditsUsage {
  return o.store.credits ? sharedLedgerUsage(o.store.credits) : ledgerUsage(ledgerFileOf(o.dataDir));
}
