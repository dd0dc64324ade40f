import type { CircuitBreaker, CircuitState, FailureCause } from '../routing/index.ts';
import type { Logger } from '../util/index.ts';

/** A failure of the same model within this long after a logged one is counted, not logged (unless its circuit changed). */
const QUIET_MS = 10_000;
const MAX_TEXT = 300;

/** `user:password@` in a URL never reaches a log line. */
function withoutCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1[redacted]@');
}

function oneLine(text: string): string {
  const line = withoutCredentials(text.split('\n')[0].trim());
  return line.length > MAX_TEXT ? `${line.slice(0, MAX_TEXT)}…` : line;
}

/** The underlying cause of a failure (a socket error, a timeout), as `CODE: message`. */
function describeCause(cause: unknown): string | undefined {
  if (cause === undefined || cause === null) return undefined;
  if (!(cause instanceof Error)) return oneLine(String(cause));
  const code = (cause as { code?: unknown }).code;
  const inner = cause.cause instanceof Error ? ` (${describeCause(cause.cause)})` : '';
  return oneLine(`${typeof code === 'string' ? code : cause.name}: ${cause.message}`) + inner;
}

/**
 * Logs every upstream failure the routing records at `warn`, with its class, status, cause and
 * what it did to the circuit. Keys and credentials never appear: the logger redacts configured
 * upstream keys by value, and URL credentials are cut here. A failing model logs at most one
 * line per 10 s (with the count of the ones in between), and every change of its circuit.
 */
export function logUpstreamFailures(breaker: CircuitBreaker, log: Logger, now: () => number = Date.now): () => void {
  const last = new Map<string, { at: number; state: CircuitState; suppressed: number }>();
  return breaker.onFailure((key, failure: FailureCause | undefined, state, failures) => {
    const t = now();
    const seen = last.get(key);
    if (seen && seen.state === state && t - seen.at < QUIET_MS) {
      seen.suppressed += 1;
      return;
    }
    const fields: Record<string, unknown> = {
      provider: key.slice(0, key.indexOf('/')),
      model: key,
      error: failure?.code ?? 'unknown',
    };
    if (failure?.status !== undefined) fields.status = failure.status;
    if (failure?.message) fields.message = oneLine(failure.message);
    const cause = describeCause(failure?.cause);
    if (cause) fields.cause = cause;
    fields.circuit = state;
    fields.consecutive_failures = failures;
    if (seen?.suppressed) fields.suppressed = seen.suppressed;
    if (last.size > 10_000) last.clear();
    last.set(key, { at: t, state, suppressed: 0 });
    log.warn('upstream call failed', fields);
  });
}
