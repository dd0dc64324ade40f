export { UsageLedger, forEachLedgerEntry, readLedger, type LedgerEntry, type NewLedgerEntry, type OpenLedgerOptions } from './ledger.ts';
export { UsageIndex, utcDay, utcMonth, utcWeekStart, type ActivityTotals, type UsageTotals } from './usage-index.ts';
export { ACTIVITY_DAYS, activityRange, buildActivityView, buildCreditsView, buildKeyView, type KeyViewInput } from './build-usage-views.ts';
export { readLedgerPage, type LedgerPage, type LedgerPageQuery } from './read-ledger-page.ts';
