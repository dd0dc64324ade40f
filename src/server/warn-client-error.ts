import type { GatewayError } from '../errors/index.ts';
import type { Logger } from '../util/index.ts';

/** One line per key and code per window: a client stuck in a retry loop must not flood the log. */
const WINDOW_MS = 60_000;
/** Bounds the memory of who was logged when (a flood of distinct keys forgets the oldest window). */
const MAX_TRACKED = 10_000;

export interface ClientErrorWarning {
  requestId: string;
  route: string;
  keyId: string | undefined;
  error: GatewayError;
}

/**
 * Logs a 4xx of an inference route as one warn line with the request id, the code and the
 * offending field (`details.fields`' first path, else `details.param`), so an operator can see
 * why an agent fails. Rate-limited per key and code; what is left out is counted on the next line.
 */
export function createClientErrorWarner(log: Logger, now: () => number = Date.now): (warning: ClientErrorWarning) => void {
  const last = new Map<string, { at: number; suppressed: number }>();
  return ({ requestId, route, keyId, error }) => {
    const slot = `${keyId ?? '-'} ${error.code}`;
    const time = now();
    const seen = last.get(slot);
    if (seen && time - seen.at < WINDOW_MS) {
      seen.suppressed += 1;
      return;
    }
    if (last.size >= MAX_TRACKED) last.clear();
    last.set(slot, { at: time, suppressed: 0 });
    const line: Record<string, unknown> = { request_id: requestId, route, status: error.status, code: error.code, message: error.message.slice(0, 300) };
    const field = offendingField(error.details);
    if (field !== undefined) line.field = field;
    if (keyId !== undefined) line.key_id = keyId;
    if (seen && seen.suppressed > 0) line.suppressed_since_last = seen.suppressed;
    log.warn('client error', line);
  };
}

function offendingField(details: Record<string, unknown> | undefined): string | undefined {
  const fields = details?.fields;
  if (fields && typeof fields === 'object') {
    const first = Object.keys(fields)[0];
    if (first !== undefined) return first;
  }
  return typeof details?.param === 'string' ? details.param : undefined;
}
