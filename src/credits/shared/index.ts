/** The credit engine shared by every instance of a database store (holds, leased slices, the settlement outbox). */
export { SharedCredits, type SharedCreditsOptions } from './shared-credits.ts';
export { MAX_OUTBOX_BACKLOG } from './shared-admission.ts';
export type { SharedEntry } from './shared-settlement.ts';
export { Slice, type SharedHold } from './slice.ts';
export { sharedLedgerUsage } from './summarize-shared-ledger.ts';
export { openSharedCredits, type OpenSharedCreditsOptions } from './open-shared-credits.ts';
