import { ledgerFileOf, scanLedger } from '../store/index.ts';
import { UsageIndex } from './usage-index.ts';

/** The usage aggregates of a data dir's ledger, read without holding the event loop (a CLI holding the data dir). */
export async function indexLedger(dataDir: string): Promise<UsageIndex> {
  const usage = new UsageIndex();
  await scanLedger(ledgerFileOf(dataDir), (entry) => usage.add(entry));
  return usage;
}
