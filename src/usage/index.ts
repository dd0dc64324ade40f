export { UsageIndex, utcDay, utcMonth, utcWeekStart, type ActivityTotals, type UsageTotals } from './usage-index.ts';
export { ACTIVITY_DAYS, activityRange, buildActivityView, buildCreditsView, buildKeyView, type KeyViewInput } from './build-usage-views.ts';
export { indexLedger } from './index-ledger.ts';
export { utcPeriods } from './utc-periods.ts';
export { buildGenerationView } from './build-generation-view.ts';
