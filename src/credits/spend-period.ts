import { roundCredits } from '../billing/index.ts';
import type { ApiKeyRecord, SpendLimitReset } from '../store/index.ts';
import type { UsageIndex } from '../usage/index.ts';
import { utcPeriods } from '../usage/index.ts';

/** Unix seconds of the first instant of the next UTC month. */
export function nextMonthStart(now: number): number {
  return utcPeriods(now).monthEnd / 1000;
}

/** Unix seconds when a spend period that contains `now` ends (UTC midnight, Monday, 1st); null for none. */
export function nextResetAt(reset: SpendLimitReset | null | undefined, now: number): number | null {
  if (!reset) return null;
  const periods = utcPeriods(now);
  return (reset === 'monthly' ? periods.monthEnd : reset === 'weekly' ? periods.weekEnd : periods.dayEnd) / 1000;
}

/** What a key may still spend: its limit, what is left of it now, and when it starts over. */
export interface KeyLimitState {
  limit: number;
  remaining: number;
  reset: SpendLimitReset | null;
  /** Unix seconds; null when the limit never resets. */
  resetsAt: number | null;
  used: number;
  reserved: number;
}

/** A key's spend limit as GET /v1/key reports it (this period's spend and in-flight holds taken off); null without one. */
export function keyLimitState(key: ApiKeyRecord, usage: UsageIndex, book: { reservedForKey(keyId: string): number }, now: number): KeyLimitState | null {
  if (key.limit === null || key.limit === undefined) return null;
  const reset = key.limitReset ?? null;
  const used = roundCredits(usage.keyCreditsIn(key.id, reset, now));
  const reserved = book.reservedForKey(key.id);
  return { limit: key.limit, remaining: roundCredits(Math.max(0, key.limit - used - reserved)), reset, resetsAt: nextResetAt(reset, now), used, reserved };
}
