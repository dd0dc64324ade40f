import type { PeriodKeys } from '../../store/index.ts';
import { utcPeriods } from '../../usage/index.ts';

export const DAY_MS = 86_400_000;

/** The periods of the last day asked for (every line of a flush is usually of one day). */
let lastPeriods: { from: number; to: number; keys: PeriodKeys } | undefined;

/** The day, week and month keys the database sums spend under, for an instant. */
export function periodKeys(now: number): PeriodKeys {
  if (lastPeriods && now >= lastPeriods.from && now < lastPeriods.to) return lastPeriods.keys;
  const p = utcPeriods(now);
  const keys: PeriodKeys = { day: p.day, week: p.week, month: p.month };
  lastPeriods = { from: p.dayStart, to: p.dayStart + DAY_MS, keys };
  return keys;
}
