import { keyLimitState, type CreditBook, type SharedCredits } from '../credits/index.ts';
import { resolveLimit, type RateLimitConfig } from '../limits/index.ts';
import type { Store } from '../store/index.ts';
import { readLedgerPage, type AccountRecord, type LedgerPage } from '../store/index.ts';
import { buildActivityView, buildCreditsView, buildKeyView, type UsageIndex } from '../usage/index.ts';
import type { Clock } from '../util/index.ts';
import { currentKey } from './current-key.ts';
import type { ActivityRange, AuthContext, UsageViews } from './types.ts';

/** The usage views of the account guards, read from the live balances and the usage index. */
export class AccountUsageViews implements UsageViews {
  constructor(
    private readonly store: Store,
    private readonly usage: UsageIndex,
    private readonly book: CreditBook,
    private readonly limits: RateLimitConfig,
    private readonly clock: Clock,
    /** The data dir's ledger file (usage.jsonl); absent: no requests to show. */
    private readonly ledgerFile?: string,
  ) {}

  credits(account: AccountRecord): ReturnType<typeof buildCreditsView> {
    const current = this.store.cache.account(account.id) ?? account;
    return buildCreditsView(current, this.usage, this.book.reserved(account.id));
  }

  key(auth: AuthContext): ReturnType<typeof buildKeyView> {
    const key = currentKey(this.store, auth.key);
    const account = this.store.cache.account(auth.account.id) ?? auth.account;
    // The limit the key meets on AI-generation endpoints.
    const limit = resolveLimit(
      { method: 'POST', path: '/v1/chat/completions', ip: '', apiKey: { id: key.id, rpm: key.rpm }, account: { id: account.id, tier: account.tier, rpm: account.rpm } },
      this.limits,
    );
    return buildKeyView({
      account,
      key,
      usage: this.usage,
      now: this.clock.now(),
      rateLimit: limit ? { requests: limit.limit, intervalMs: limit.windowMs, source: limit.source } : null,
      spendLimit: keyLimitState(key, this.usage, this.book, this.clock.now()),
    });
  }

  activity(accountId: string, range: ActivityRange): ReturnType<typeof buildActivityView> {
    return buildActivityView(this.usage, accountId, range);
  }

  async requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage> {
    if (!this.ledgerFile) return { data: [], next: null };
    return readLedgerPage(this.ledgerFile, { accountId, ...page });
  }
}

/**
 * The usage views when credits are shared across instances: the balance and holds read from
 * the database, the aggregates from its ledger (one query per view; docs/scale-out.md).
 */
export class SharedUsageViews implements UsageViews {
  constructor(
    private readonly store: Store,
    private readonly shared: SharedCredits,
    private readonly limits: RateLimitConfig,
    private readonly clock: Clock,
  ) {}

  async credits(account: AccountRecord): Promise<ReturnType<typeof buildCreditsView>> {
    const [{ usage }, balance] = await Promise.all([this.shared.usage(account.id), this.shared.balance(account.id)]);
    const current = this.store.cache.account(account.id) ?? account;
    return buildCreditsView(balance ? { ...current, credits: balance.credits } : current, usage, balance?.reserved ?? 0);
  }

  async key(auth: AuthContext): Promise<ReturnType<typeof buildKeyView>> {
    const key = currentKey(this.store, auth.key);
    const account = this.store.cache.account(auth.account.id) ?? auth.account;
    const { usage, keyReserved } = await this.shared.usage(account.id);
    const now = this.clock.now();
    const limit = resolveLimit(
      { method: 'POST', path: '/v1/chat/completions', ip: '', apiKey: { id: key.id, rpm: key.rpm }, account: { id: account.id, tier: account.tier, rpm: account.rpm } },
      this.limits,
    );
    return buildKeyView({
      account,
      key,
      usage,
      now,
      rateLimit: limit ? { requests: limit.limit, intervalMs: limit.windowMs, source: limit.source } : null,
      spendLimit: keyLimitState(key, usage, { reservedForKey: (id) => keyReserved.get(id) ?? 0 }, now),
    });
  }

  async activity(accountId: string, range: ActivityRange): Promise<ReturnType<typeof buildActivityView>> {
    return buildActivityView((await this.shared.usage(accountId)).usage, accountId, range);
  }

  /** Cursor `<ts>:<seq>` of the last row of the previous page. */
  async requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage> {
    const [ts, seq] = (page.cursor ?? '').split(':').map(Number);
    const before = Number.isSafeInteger(ts) && Number.isSafeInteger(seq) && page.cursor ? { ts, seq } : undefined;
    const data = await this.shared.recentLedger({ accountId, before, limit: page.limit });
    const last = data[data.length - 1];
    return { data, next: data.length === page.limit && last ? `${last.ts}:${last.seq}` : null };
  }
}
