/** Credits with thousands separators and at most 3 decimals (1 credit = 0.001 USD). */
export function formatCredits(credits: number): string {
  return credits.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** A whole number with thousands separators. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** Unix seconds as `YYYY-MM-DD HH:MM` in UTC, or `-`. */
export function formatTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

export function formatQuota(quota: number | null): string {
  return quota === null ? 'unlimited' : formatCount(quota);
}

/** A key's state: revoked, expired (at `nowMs`) or active. */
export function keyStatus(key: { revoked_at: number | null; expires_at: number | null }, nowMs: number): 'revoked' | 'expired' | 'active' {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && key.expires_at * 1000 <= nowMs) return 'expired';
  return 'active';
}

const RESET_SHORT: Record<string, string> = { daily: ' day', weekly: ' wk', monthly: ' mo' };

/** A key's spend limit for a table cell: `3.5/10 mo` (spent this period / limit; day, wk, mo or all time), or `-`. */
export function describeKeyLimit(key: { limit: number | null; limit_reset: string | null; limit_used: number | null }): string {
  if (key.limit === null) return '-';
  const amount = key.limit_used === null ? formatCredits(key.limit) : `${formatCredits(key.limit_used)}/${formatCredits(key.limit)}`;
  return `${amount}${key.limit_reset ? RESET_SHORT[key.limit_reset] : ''}`;
}

/** A key's spend limit in words: `spent 3.5 of 10 credits this month`, `limit 10 credits (no reset)`, or `no spend limit`. */
export function describeKeyLimitLong(key: { limit: number | null; limit_reset: string | null; limit_used: number | null }): string {
  if (key.limit === null) return 'no spend limit';
  const period = key.limit_reset === 'daily' ? 'today' : key.limit_reset === 'weekly' ? 'this week' : key.limit_reset === 'monthly' ? 'this month' : 'of all time';
  if (key.limit_used === null) return `limit ${formatCredits(key.limit)} credits ${key.limit_reset ?? '(no reset)'}`;
  return `spent ${formatCredits(key.limit_used)} of ${formatCredits(key.limit)} credits ${period}`;
}

/** A key's scopes: `mock/*; chat,images`, or `all`. */
export function describeKeyScope(key: { models: string[] | null; endpoints: string[] | null }): string {
  if (!key.models && !key.endpoints) return 'all';
  return [key.models?.join(',') ?? 'all models', key.endpoints?.join(',') ?? 'all endpoints'].join('; ');
}

/** An account's monthly spend cap: `7/50`, `50`, or `-`. */
export function describeSpendCap(account: { spend_cap: number | null; month_spent: number | null }): string {
  if (account.spend_cap === null) return '-';
  return account.month_spent === null ? formatCredits(account.spend_cap) : `${formatCredits(account.month_spent)}/${formatCredits(account.spend_cap)}`;
}

/** Unix seconds as `YYYY-MM-DD` (UTC), or `-`. */
export function formatDate(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** How long ago: `just now`, `5m ago`, `3h ago`, `12d ago`, or `never`. */
export function formatAge(seconds: number | null | undefined, nowMs: number): string {
  if (seconds === null || seconds === undefined) return 'never';
  const s = Math.max(0, Math.floor(nowMs / 1000 - seconds));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/** A batch's progress as a bar and a share: `[██████░░░░] 60%` (lines finished, completed or failed, of all). */
export function formatProgress(counts: { total: number; completed: number; failed: number }, width = 10): string {
  const done = counts.completed + counts.failed;
  const share = counts.total > 0 ? Math.min(1, done / counts.total) : 0;
  const filled = Math.round(share * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
}
