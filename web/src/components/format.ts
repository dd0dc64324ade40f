/** Credits (1 credit = $0.001) with their USD. */
export function credits(value: number): string {
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 3 })} cr`;
}

export function usd(value: number): string {
  return `$${value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: value === 0 || value >= 1 ? 2 : value >= 0.01 ? 4 : 6 })}`;
}

export function count(value: number): string {
  return value.toLocaleString();
}

/** Unix seconds or ms as a local date and time. */
export function when(value: number | null | undefined, unit: 's' | 'ms' = 's'): string {
  if (value === null || value === undefined) return '—';
  return new Date(unit === 's' ? value * 1000 : value).toLocaleString();
}

export function statusClass(status: string): string {
  if (['completed', 'ok', 'active'].includes(status)) return 'badge ok';
  if (['failed', 'expired', 'cancelled', 'revoked', 'aborted', 'open'].includes(status)) return 'badge bad';
  return 'badge warn';
}

/** UTC day `YYYY-MM-DD` of ms epoch. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
