/** The in-process credit engine (the file store: one process owns a data dir). */
export { CreditBook, type BilledAccount, type Reservation } from './credit-book.ts';
export { openLedgerAndReplay, type ReplayReport } from './replay-ledger.ts';
export { InProcessCredits, type InProcessCreditsOptions } from './in-process-credits.ts';
export { ledgerUsage } from './summarize-ledger.ts';
export { openInProcessCredits, type OpenInProcessCreditsOptions } from './open-in-process-credits.ts';
