/** A service URL as it may be shown: scheme, user, host, port and path, never the password or the query (no driver loaded). */
export function describeServiceUrl(url: string, fallback: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return fallback;
  }
}

/** A PostgreSQL URL as it may be shown: user, host, port and database, never the password. */
export function describePostgresUrl(url: string): string {
  return describeServiceUrl(url, 'the configured PostgreSQL URL');
}
