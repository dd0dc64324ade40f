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

/** Unix seconds as a UTC date and time, said so (a key's expiry: a day the gateway reads as midnight UTC, the same wherever it is read). */
export function utcWhen(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return `${new Date(value * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A ledger's endpoint (the gateway's route pattern) as the path a client calls: `:name` as `{name}`,
 * a model path's tail as the model and what follows it (`/v1beta/models/**` → `/v1beta/models/{model}:…`).
 */
export function endpointPath(route: string): string {
  return route
    .replace(/\/models\/\*\*$/, '/models/{model}:…')
    .replace(/\/model\/\*\*$/, '/model/{model}/…')
    .replace(/\/\*\*$/, '/…')
    .replace(/:([A-Za-z]\w*)/g, '{$1}');
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
