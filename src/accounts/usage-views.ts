import type { CreditsPort } from '../credits/index.ts';
import { keyLimitState } from '../credits/index.ts';
import { resolveLimit, type RateLimitConfig } from '../limits/index.ts';
import type { AccountRecord, LedgerPage, Store } from '../store/index.ts';
import { buildActivityView, buildCreditsView, buildGenerationView, buildKeyView } from '../usage/index.ts';
import type { Clock } from '../util/index.ts';
import { currentKey } from './current-key.ts';
import type { ActivityRange, AuthContext, UsageViews } from './types.ts';

/** Ledger lines read per page while looking for one request, and the most pages read: the account's 10,000 latest requests. */
const GENERATION_PAGE = 500;
const GENERATION_PAGES = 20;

/**
 * GET /v1/credits, /v1/key, /v1/activity, /v1/generation and the dashboard's requests: the account and key as
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

  /**
   * The key's settled request by its id (the request's, or its answer's own: `answer_id`), read
   * from the usage ledger as the dashboard's request list is (newest first, the account's latest
   * 10,000 lines): a lookup follows its request, so it is near the end. No index is kept for it,
   * so a settlement writes nothing more. Another key's request of the same account is not found,
   * as on OpenRouter; an answer id two requests share (upstreams' ids are not the gateway's to
   * keep unique) finds the key's newest.
   */
  async generation(auth: AuthContext, id: string): Promise<ReturnType<typeof buildGenerationView> | undefined> {
    const keyId = auth.key.id;
    let cursor: string | undefined;
    for (let page = 0; page < GENERATION_PAGES; page += 1) {
      const read = await this.engine.requests(auth.account.id, cursor === undefined ? { limit: GENERATION_PAGE } : { cursor, limit: GENERATION_PAGE });
      const found = read.data.find((entry) => entry.key_id === keyId && (entry.request_id === id || entry.answer_id === id));
      if (found) return buildGenerationView(found);
      if (read.next === null) return undefined;
      cursor = read.next;
    }
    return undefined;
  }
}
