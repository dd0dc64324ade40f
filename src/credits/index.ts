/**
 * The credit engine: where a request's credits are held and charged. Two implementations,
 * chosen once at start-up by the composition root: in process (the file store) and shared
 * through the database (a PostgreSQL store).
 */
export { CreditBook, balanceError, ceilingError, openLedgerAndReplay, type BilledAccount, type Reservation, type ReplayReport, type SpendCeiling } from './in-process/index.ts';
export { SharedCredits, Slice, MAX_OUTBOX_BACKLOG, type SharedCreditsOptions, type SharedEntry, type SharedHold } from './shared/index.ts';
export { keyLimitState, nextMonthStart, nextResetAt, type KeyLimitState } from './spend-period.ts';
