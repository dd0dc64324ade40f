import { creditsToUsd, roundCredits, USD_PER_CREDIT } from '../billing/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../store/index.ts';
import { utcDay, type UsageIndex } from './usage-index.ts';

/** Days of activity served (OpenRouter serves the last 30 completed days; we include today). */
export const ACTIVITY_DAYS = 30;

/** GET /v1/credits body: OpenRouter's USD fields plus the same amounts in credits. */
export function buildCreditsView(account: AccountRecord, usage: UsageIndex, reserved: number) {
  const used = roundCredits(usage.accountCredits(account.id));
  const balance = roundCredits(account.credits);
  return {
    data: {
      total_credits: creditsToUsd(balance + used),
      total_usage: creditsToUsd(used),
      balance: creditsToUsd(balance),
      credits: {
        balance,
        reserved: roundCredits(reserved),
        available: roundCredits(Math.max(0, balance - reserved)),
        total_granted: roundCredits(balance + used),
        total_used: used,
      },
      currency: 'USD',
      usd_per_credit: USD_PER_CREDIT,
    },
  };
}

export interface KeyViewInput {
  account: AccountRecord;
  key: ApiKeyRecord;
  usage: UsageIndex;
  now: number;
  /** The limit the key meets on AI-generation endpoints, null = unlimited. */
  rateLimit: { requests: number; intervalMs: number; source: string } | null;
  /** The key's spend limit in credits and what is left of it now (reservations of requests in flight taken off); null = none. */
  spendLimit?: { limit: number; remaining: number; reset: 'daily' | 'weekly' | 'monthly' | null; resetsAt: number | null; used: number; reserved: number } | null;
}

/** GET /v1/key body: OpenRouter's shape (USD), plus credits, tier and quota. */
export function buildKeyView(input: KeyViewInput) {
  const { account, key, usage, now } = input;
  const spend = usage.keyCredits(key.id, now);
  const quota = account.monthlyTokenQuota;
  const monthTokens = usage.tokensInMonth(account.id, now);
  const cap = input.spendLimit ?? null;
  return {
    data: {
      label: key.preview,
      name: key.name,
      id: key.id,
      limit: cap ? creditsToUsd(cap.limit) : null,
      limit_remaining: cap ? creditsToUsd(cap.remaining) : null,
      limit_reset: cap ? cap.reset : null,
      include_byok_in_limit: false,
      usage: creditsToUsd(spend.total),
      usage_daily: creditsToUsd(spend.daily),
      usage_weekly: creditsToUsd(spend.weekly),
      usage_monthly: creditsToUsd(spend.monthly),
      byok_usage: 0,
      byok_usage_daily: 0,
      byok_usage_weekly: 0,
      byok_usage_monthly: 0,
      is_free_tier: account.tier === 'free',
      is_management_key: false,
      is_provisioning_key: false,
      creator_user_id: account.id,
      expires_at: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
      rate_limit: input.rateLimit
        ? { requests: input.rateLimit.requests, interval: `${Math.round(input.rateLimit.intervalMs / 1000)}s`, note: `AI-generation endpoints; ${input.rateLimit.source} limit` }
        : { requests: -1, interval: '60s', note: 'unlimited' },
      usage_credits: {
        total: roundCredits(spend.total),
        daily: roundCredits(spend.daily),
        weekly: roundCredits(spend.weekly),
        monthly: roundCredits(spend.monthly),
      },
      limit_credits: cap
        ? { limit: cap.limit, remaining: cap.remaining, used: cap.used, reserved: roundCredits(cap.reserved), reset: cap.reset, resets_at: cap.resetsAt }
        : null,
      models: key.models ?? null,
      endpoints: key.endpoints ?? null,
      tier: account.tier,
      monthly_token_quota: quota,
      monthly_tokens_used: monthTokens,
      monthly_tokens_remaining: quota === null ? null : Math.max(0, quota - monthTokens),
      currency: 'USD',
      usd_per_credit: USD_PER_CREDIT,
    },
  };
}

/** The UTC days the activity endpoint may serve: today and the 29 before it. */
export function activityRange(now: number): { from: string; to: string } {
  return { from: utcDay(now - (ACTIVITY_DAYS - 1) * 86_400_000), to: utcDay(now) };
}

/** GET /v1/activity body: one row per (UTC day, model, provider), newest first. */
export function buildActivityView(usage: UsageIndex, accountId: string, range: { from: string; to: string; keyId?: string }) {
  return {
    data: usage.activity(accountId, range).map((row) => ({
      date: row.date,
      model: row.model,
      model_permaslug: row.model,
      endpoint_id: `${row.provider}:${row.model}`,
      provider_name: row.provider,
      usage: creditsToUsd(row.credits),
      usage_credits: roundCredits(row.credits),
      byok_usage_inference: 0,
      requests: row.requests,
      prompt_tokens: row.prompt_tokens,
      completion_tokens: row.completion_tokens,
      reasoning_tokens: row.reasoning_tokens,
      web_search_requests: row.web_search_requests,
    })),
  };
}
