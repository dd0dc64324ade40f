/** The in-process credit engine (the file store: one process owns a data dir). */
export { CreditBook, balanceError, ceilingError, type BilledAccount, type Reservation, type SpendCeiling } from './credit-book.ts';
export { openLedgerAndReplay, type ReplayReport } from './replay-ledger.ts';
