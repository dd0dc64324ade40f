import { GatewayError } from '../errors/index.ts';
import type { DecodedUpstreamError } from '../formats/types.ts';

/** Secrets an upstream may echo back (e.g. "Incorrect API key provided: sk-…"). */
const SECRET_PATTERN = /\b(sk|pk|rk|key)-[A-Za-z0-9_\-]{6,}|\bBearer\s+\S+/g;

function clean(message: string): string {
  return message.replace(SECRET_PATTERN, '[redacted]').slice(0, 500);
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Maps an upstream error status and body to the spec's codes (§7). */
export function mapUpstreamError(
  providerId: string,
  status: number,
  decoded: DecodedUpstreamError,
  headers: Record<string, string | string[] | undefined>,
): GatewayError {
  const upstream = clean(decoded.message || `status ${status}`);
  const details = { provider: providerId, upstream_status: status };
  if (status === 429) {
    const retryAfter = parseRetryAfter(headers['retry-after']);
    return new GatewayError('rate_limit_exceeded', `The provider '${providerId}' is rate limiting requests: ${upstream}`, {
      details,
      retryAfter,
      headers: retryAfter === undefined ? undefined : { 'Retry-After': String(retryAfter) },
    });
  }
  if (status === 401 || status === 403) {
    // The client's key was fine; the gateway's upstream credentials were not. Never echo them.
    return new GatewayError('provider_error', `The provider '${providerId}' rejected the gateway's credentials.`, { details });
  }
  if (status === 404) return new GatewayError('model_not_found', `The provider '${providerId}' does not know this model: ${upstream}`, { details });
  if (status === 413) return new GatewayError('request_too_large', `The provider '${providerId}' says the request is too large: ${upstream}`, { details });
  if (status === 408 || status === 504) return new GatewayError('provider_timeout', `The provider '${providerId}' timed out: ${upstream}`, { details });
  if (status === 503 || status === 529) return new GatewayError('provider_unavailable', `The provider '${providerId}' is unavailable: ${upstream}`, { details });
  if (status >= 400 && status < 500) return new GatewayError('bad_request', `The provider '${providerId}' rejected the request: ${upstream}`, { details });
  return new GatewayError('provider_error', `The provider '${providerId}' failed: ${upstream}`, { details });
}
