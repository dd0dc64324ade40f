import type { UsageTotalsRow } from '../store/index.ts';
import type { LedgerEntry } from '../store/index.ts';
import { utcPeriods } from './utc-periods.ts';

/** One activity row: a (UTC day, model, provider) of one account, optionally one key. */
export interface ActivityTotals {
  date: string;
  model: string;
  provider: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  /** Hosted web searches the upstreams ran (the ledger lines' `web_search_requests`). */
  web_search_requests: number;
  /** Credits taken from the balance. */
  credits: number;
}

/** Ledger totals of one (UTC day, account, key, model, provider); the store's shape. */
export type UsageTotals = UsageTotalsRow;

interface Row extends ActivityTotals {
  accountId: string;
  keyId: string;
}

/** Spend of one key: all time and per UTC day, week (by its Monday) and month. */
interface KeySpend {
  total: number;
  byDay: Map<string, number>;
  byWeek: Map<string, number>;
  byMonth: Map<string, number>;
}

/** `YYYY-MM-DD` (UTC) of a ms epoch. */
export function utcDay(ms: number): string {
  return utcPeriods(ms).day;
}

/** `YYYY-MM` (UTC) of a ms epoch. */
export function utcMonth(ms: number): string {
  return utcPeriods(ms).month;
}

/** Monday 00:00 UTC of the week containing `ms`, as `YYYY-MM-DD`. */
export function utcWeekStart(ms: number): string {
  return utcPeriods(ms).week;
}

/**
 * Usage aggregates rebuilt from the ledger at startup and kept current on every settle:
 * they answer the monthly quota check on the request path and the usage endpoints,
 * so neither reads the ledger file.
 */
export class UsageIndex {
  private readonly rows = new Map<string, Row>();
  private readonly monthTokens = new Map<string, number>();
  /** Web searches per account and UTC month. */
  private readonly monthSearches = new Map<string, number>();
  private readonly accountSpend = new Map<string, number>();
  /** Credits per account and UTC month (the account spend cap). */
  private readonly accountMonthSpend = new Map<string, number>();
  private readonly keySpend = new Map<string, KeySpend>();
  /** The row the last addTotals went to. */
  private lastRow: Row | undefined;
  /** Its account-and-month key. */
  private lastMonth: string | undefined;

  add(entry: LedgerEntry): void {
    this.addTotals({
      date: utcDay(entry.ts),
      accountId: entry.account_id,
      keyId: entry.key_id,
      model: entry.model,
      provider: entry.provider,
      requests: 1,
      inputTokens: entry.input_tokens,
      outputTokens: entry.output_tokens,
      reasoningTokens: entry.reasoning_tokens ?? 0,
      webSearchRequests: entry.web_search_requests ?? 0,
      credits: entry.charged_credits ?? entry.cost_credits ?? 0,
    }, entry.ts);
  }

  /**
   * Adds the totals of one (UTC day, account, key, model, provider): one ledger line, or many
   * summed (a database's ledger). `at` is any instant of that day (default: its start).
   */
  addTotals(t: UsageTotals, at?: number): void {
    const day = t.date;
    const credits = t.credits;
    // Settlements of one key and model come one after another: the row of the last one is
    // reused without building and hashing its five-part id again.
    let row = this.lastRow;
    if (!row || row.date !== day || row.accountId !== t.accountId || row.keyId !== t.keyId || row.model !== t.model || row.provider !== t.provider) {
      const id = `${day}\u0000${t.accountId}\u0000${t.keyId}\u0000${t.model}\u0000${t.provider}`;
      row = this.rows.get(id);
      if (!row) {
        row = { date: day, model: t.model, provider: t.provider, accountId: t.accountId, keyId: t.keyId, requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, web_search_requests: 0, credits: 0 };
        this.rows.set(id, row);
      }
      this.lastRow = row;
      this.lastMonth = `${t.accountId}\u0000${day.slice(0, 7)}`;
    }
    row.requests += t.requests;
    row.prompt_tokens += t.inputTokens;
    row.completion_tokens += t.outputTokens;
    row.reasoning_tokens += t.reasoningTokens;
    row.web_search_requests += t.webSearchRequests;
    row.credits += credits;

    const month = this.lastMonth!;
    this.monthTokens.set(month, (this.monthTokens.get(month) ?? 0) + t.inputTokens + t.outputTokens);
    if (t.webSearchRequests > 0) this.monthSearches.set(month, (this.monthSearches.get(month) ?? 0) + t.webSearchRequests);
    this.accountSpend.set(t.accountId, (this.accountSpend.get(t.accountId) ?? 0) + credits);
    this.accountMonthSpend.set(month, (this.accountMonthSpend.get(month) ?? 0) + credits);
    const spend = this.spendOf(t.keyId);
    spend.total += credits;
    spend.byDay.set(day, (spend.byDay.get(day) ?? 0) + credits);
    const periods = utcPeriods(at ?? Date.parse(day));
    spend.byWeek.set(periods.week, (spend.byWeek.get(periods.week) ?? 0) + credits);
    spend.byMonth.set(periods.month, (spend.byMonth.get(periods.month) ?? 0) + credits);
  }

  /** Spend older than the days this index holds (all-time totals only: a database keeps them per key). */
  addOlderSpend(accountId: string, keyId: string, credits: number): void {
    if (credits === 0) return;
    this.accountSpend.set(accountId, (this.accountSpend.get(accountId) ?? 0) + credits);
    this.spendOf(keyId).total += credits;
  }

  private spendOf(keyId: string): KeySpend {
    let spend = this.keySpend.get(keyId);
    if (!spend) {
      spend = { total: 0, byDay: new Map(), byWeek: new Map(), byMonth: new Map() };
      this.keySpend.set(keyId, spend);
    }
    return spend;
  }

  /** Input plus output tokens an account used in the UTC month containing `now`. */
  tokensInMonth(accountId: string, now: number): number {
    return this.monthTokens.get(`${accountId}\u0000${utcMonth(now)}`) ?? 0;
  }

  /** Hosted web searches an account's requests ran in the UTC month containing `now`. */
  webSearchesInMonth(accountId: string, now: number): number {
    return this.monthSearches.get(`${accountId}\u0000${utcMonth(now)}`) ?? 0;
  }

  /** Credits an account has spent, all time. */
  accountCredits(accountId: string): number {
    return this.accountSpend.get(accountId) ?? 0;
  }

  /** Credits an account has spent in the UTC month containing `now`. */
  accountCreditsInMonth(accountId: string, now: number): number {
    return this.accountMonthSpend.get(`${accountId}\u0000${utcMonth(now)}`) ?? 0;
  }

  /**
   * Credits a key has spent in the current period (UTC day, week from Monday, month) or all
   * time: one map read, for the spend-limit check on the request path.
   */
  keyCreditsIn(keyId: string, period: 'daily' | 'weekly' | 'monthly' | null | undefined, now: number): number {
    const spend = this.keySpend.get(keyId);
    if (!spend) return 0;
    if (!period) return spend.total;
    const periods = utcPeriods(now);
    const byPeriod = period === 'monthly' ? spend.byMonth : period === 'weekly' ? spend.byWeek : spend.byDay;
    return byPeriod.get(period === 'monthly' ? periods.month : period === 'weekly' ? periods.week : periods.day) ?? 0;
  }

  /** Credits a key has spent: all time, this UTC day, week (from Monday) and month. */
  keyCredits(keyId: string, now: number): { total: number; daily: number; weekly: number; monthly: number } {
    const spend = this.keySpend.get(keyId);
    if (!spend) return { total: 0, daily: 0, weekly: 0, monthly: 0 };
    const today = utcDay(now);
    const week = utcWeekStart(now);
    const month = utcMonth(now);
    let daily = 0;
    let weekly = 0;
    let monthly = 0;
    for (const [day, credits] of spend.byDay) {
      if (day === today) daily += credits;
      if (day >= week && day <= today) weekly += credits;
      if (day.startsWith(month)) monthly += credits;
    }
    return { total: spend.total, daily, weekly, monthly };
  }

  /**
   * Activity rows of an account between two UTC days (inclusive), one per (day, model,
   * provider), newest day first; `keyId` narrows to one key.
   */
  activity(accountId: string, range: { from: string; to: string; keyId?: string }): ActivityTotals[] {
    const merged = new Map<string, ActivityTotals>();
    for (const row of this.rows.values()) {
      if (row.accountId !== accountId || row.date < range.from || row.date > range.to) continue;
      if (range.keyId && row.keyId !== range.keyId) continue;
      const id = `${row.date}\u0000${row.model}\u0000${row.provider}`;
      const into = merged.get(id) ?? { date: row.date, model: row.model, provider: row.provider, requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, web_search_requests: 0, credits: 0 };
      into.requests += row.requests;
      into.prompt_tokens += row.prompt_tokens;
      into.completion_tokens += row.completion_tokens;
      into.reasoning_tokens += row.reasoning_tokens;
      into.web_search_requests += row.web_search_requests;
      into.credits += row.credits;
      merged.set(id, into);
    }
    return [...merged.values()].sort((a, b) => (a.date === b.date ? a.model.localeCompare(b.model) : a.date < b.date ? 1 : -1));
  }
}
