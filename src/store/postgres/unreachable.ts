import { GatewayError } from '../../errors/index.ts';

/** Node's codes for a connection that could not be made or was lost. */
const CONNECTION_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** SQLSTATEs of a server that is away or not taking work (not of a query it refused): shutting down, starting up, out of connections. */
const UNAVAILABLE_SQLSTATE = new Set(['57P01', '57P02', '57P03', '53300']);

/** The pg driver's own words for a connection that ended or never came (it gives them no code). */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout)/;

/** Of those, the codes and words of a connection that was never made: nothing was sent on it. */
const NEVER_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P03', '53300']);
const NEVER_CONNECTED_MESSAGE = /^timeout exceeded when trying to connect/;

/** True when `error` says the call failed before it reached PostgreSQL (no connection was made), so the database cannot have taken it. */
export function failedBeforeSending(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return NEVER_CONNECTED_CODES.has(String(e.code)) || NEVER_CONNECTED_MESSAGE.test(String(e.message));
}

/** True when `error` (or its cause) says PostgreSQL could not be reached, not that a query was wrong. */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_ERRNO.has(code) || UNAVAILABLE_SQLSTATE.has(code) || code.startsWith('08'))) return true;
    if (PG_CONNECTION_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/**
 * The answer for a request whose records could not be read or written because the database
 * is away (a restart, a partition): the spec's 503 `service_unavailable`, retryable, instead of
 * a 500. Undefined for any other error.
 */
export function databaseUnavailable(error: unknown): GatewayError | undefined {
  if (!isDatabaseUnreachable(error)) return undefined;
  return new GatewayError('service_unavailable', 'The database is unavailable right now; retry shortly.', { cause: error, retryAfter: 1 });
}
