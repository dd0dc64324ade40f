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
