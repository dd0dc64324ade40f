import type { CreditsPort } from '../credits/index.ts';
import { keyLimitState } from '../credits/index.ts';
import { resolveLimit, type RateLimitConfig } from '../limits/index.ts';
import type { AccountRecord, LedgerPage, Store } from '../store/index.ts';
import { buildActivityView, buildCreditsView, buildKeyView } from '../usage/index.ts';
import type { Clock } from '../util/index.ts';
import { currentKey } from './current-key.ts';
import type { ActivityRange, AuthContext, UsageViews } from './types.ts';

/**
 * GET /v1/credits, /v1/key, /v1/activity and the dashboard's requests: the account and key as
 * the store has them now, the balance, holds and aggregates as the credit engine reads them.
 */
export class AccountUsageViews implements UsageViews {
  constructor(
    private readonly store: Store,
    private readonly engine: CreditsPort,
    private readonly limits: RateLimitConfig,
    private readonly clock: Clock,
  ) {}

  async credits(account: AccountRecord): Promise<ReturnType<typeof buildCreditsView>> {
    const { usage, balance } = await this.engine.read(account.id, { balance: true });
    const current = this.store.cache.account(account.id) ?? account;
    return buildCreditsView(balance ? { ...current, credits: balance.credits } : current, usage, balance?.reserved ?? 0);
  }

  async key(auth: AuthContext): Promise<ReturnType<typeof buildKeyView>> {
    const key = currentKey(this.store, auth.key);
    const account = this.store.cache.account(auth.account.id) ?? auth.account;
    const reading = await this.engine.read(account.id);
    const now = this.clock.now();
    // The limit the key meets on AI-generation endpoints.
    const limit = resolveLimit(
      { method: 'POST', path: '/v1/chat/completions', ip: '', apiKey: { id: key.id, rpm: key.rpm }, account: { id: account.id, tier: account.tier, rpm: account.rpm } },
      this.limits,
    );
    return buildKeyView({
      account,
      key,
      usage: reading.usage,
      now,
      rateLimit: limit ? { requests: limit.limit, intervalMs: limit.windowMs, source: limit.source } : null,
      spendLimit: keyLimitState(key, reading.usage, reading, now),
    });
  }

  async activity(accountId: string, range: ActivityRange): Promise<ReturnType<typeof buildActivityView>> {
    return buildActivityView((await this.engine.read(accountId)).usage, accountId, range);
  }

  requests(accountId: string, page: { cursor?: string; limit: number }): Promise<LedgerPage> {
    return this.engine.requests(accountId, page);
  }
}
