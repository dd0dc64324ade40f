/**
 * The credit engine: where a request's credits are held and charged. One port (`CreditsPort`),
 * two implementations, chosen once at start-up by the composition root (src/app/open-credits.ts):
 * in process (the file store) and shared through the database (a PostgreSQL store).
 */
export type { CreditHold, CreditsPort, CreditsReading, CreditsUsage, HoldInput, PricedEntry, Settled, SettleInput, UsageSummary } from './types.ts';
export {
  CreditBook,
  InProcessCredits,
  ledgerUsage,
  openInProcessCredits,
  openLedgerAndReplay,
  type BilledAccount,
  type InProcessCreditsOptions,
  type OpenInProcessCreditsOptions,
  type Reservation,
  type ReplayReport,
} from './in-process/index.ts';
export { SharedCredits, Slice, sharedLedgerUsage, MAX_OUTBOX_BACKLOG, openSharedCredits, type OpenSharedCreditsOptions, type SharedCreditsOptions, type SharedEntry, type SharedHold } from './shared/index.ts';
export { openCreditsUsage } from './open-usage.ts';
export { balanceError, ceilingError, type SpendCeiling } from './credit-refusals.ts';
export { keyLimitState, nextMonthStart, nextResetAt, type KeyLimitState } from './spend-period.ts';
