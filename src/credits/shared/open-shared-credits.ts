import type { CreditsRepo } from '../../store/index.ts';
import type { Clock } from '../../util/index.ts';
import type { Logger } from '../../util/index.ts';
import { SharedCredits } from './shared-credits.ts';

export interface OpenSharedCreditsOptions {
  repo: CreditsRepo;
  dataDir: string;
  clock: Clock;
  log: Logger;
  /** `billing.enforce`. */
  enforce: boolean;
  storage: { failed(error: unknown, what: string): void; check(): void };
  /** `store.flushMs`, `store.leaseIdleMs`. */
  flushMs?: number;
  leaseIdleMs?: number;
  /** `store.instanceStaleMs` and the beat it implies (a sixth of it); defaults 30,000 and 5,000. */
  staleMs?: number;
  beatMs?: number;
  /** `billing.ledgerSyncMs` / `billing.ledgerGroupMs` for the outbox file. */
  syncIntervalMs?: number;
  groupCommitMs?: number;
}

/** Opens the credit engine shared through the database: says this instance is alive, sends what its outbox kept, starts the heartbeat. */
export async function openSharedCredits(o: OpenSharedCreditsOptions): Promise<SharedCredits> {
  const credits = new SharedCredits(o);
  await credits.start();
  return credits;
}
