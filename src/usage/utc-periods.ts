/** The UTC day, week (from Monday) and month an instant falls in, and when each ends. */
export interface UtcPeriods {
  /** `YYYY-MM-DD`. */
  day: string;
  /** Monday of the week, `YYYY-MM-DD`. */
  week: string;
  /** `YYYY-MM`. */
  month: string;
  /** ms epoch: the day's first instant and the next day's, Monday of next week, the 1st of next month. */
  dayStart: number;
  dayEnd: number;
  weekEnd: number;
  monthEnd: number;
}

const DAY_MS = 86_400_000;
let last: UtcPeriods | undefined;

/**
 * The periods of `ms`, remembered for the day it falls in: the request path asks on every
 * admission and settlement, nearly always for today, and then builds no Date or string.
 */
export function utcPeriods(ms: number): UtcPeriods {
  if (last && ms >= last.dayStart && ms < last.dayEnd) return last;
  const d = new Date(ms);
  const [y, m, date] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  const dayStart = Date.UTC(y, m, date);
  const back = (d.getUTCDay() + 6) % 7;
  const iso = d.toISOString();
  const periods: UtcPeriods = {
    day: iso.slice(0, 10),
    week: new Date(dayStart - back * DAY_MS).toISOString().slice(0, 10),
    month: iso.slice(0, 7),
    dayStart,
    dayEnd: dayStart + DAY_MS,
    weekEnd: dayStart + (7 - back) * DAY_MS,
    monthEnd: Date.UTC(y, m + 1, 1),
  };
  last = periods;
  return periods;
}
