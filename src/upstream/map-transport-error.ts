import { GatewayError, isGatewayError } from '../errors/index.ts';
import { undici } from './undici.ts';

/**
 * Whether an error is the network's, not a plugin's own code: undici's errors, a system error
 * (`ECONNRESET`, `EPIPE`…, carried by a `code`), fetch's `TypeError: fetch failed` (its cause has
 * the code) and aborts. A plugin's `throw new Error(...)` or a bug in it (a TypeError reading a
 * field) is none of these.
 */
export function isTransportError(error: unknown): boolean {
  if (error instanceof undici().errors.UndiciError) return true;
  if (!(error instanceof Error)) return false;
  if (typeof (error as { code?: unknown }).code === 'string') return true;
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return true;
  const cause = (error as { cause?: unknown }).cause;
  return error.name === 'TypeError' && error.message === 'fetch failed' && (cause === undefined || isTransportError(cause) || cause instanceof Error);
}

/**
 * Maps a transport failure (before or during the body) to the spec's provider codes; `provider`:
 * the provider's id, named when it could not be reached (a wrong baseURL, a local server not
 * started), as an upstream's own refusal names it.
 */
export function mapTransportError(error: unknown, signal?: { readonly aborted: boolean; readonly reason: unknown }, provider?: string): GatewayError {
  if (isGatewayError(error)) return error;
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (isGatewayError(reason)) return reason;
    return new GatewayError('provider_timeout', 'The request to the provider was aborted.', { cause: error });
  }
  if (
    error instanceof undici().errors.HeadersTimeoutError ||
    error instanceof undici().errors.BodyTimeoutError ||
    error instanceof undici().errors.ConnectTimeoutError
  ) {
    return new GatewayError('provider_timeout', 'The provider did not answer in time.', { cause: error });
  }
  // undici refused to send what it was given (a header value it rejects): the gateway's request, not the provider's health.
  if (error instanceof undici().errors.InvalidArgumentError) {
    return new GatewayError('internal_error', 'The gateway could not send the request to the provider: undici refused it as invalid.', { cause: error });
  }
  const code = (error as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    if (provider === undefined) return new GatewayError('provider_unavailable', 'The provider could not be reached.', { cause: error });
    return new GatewayError('provider_unavailable', `The provider '${provider}' could not be reached.`, { cause: error, details: { provider } });
  }
  return new GatewayError('provider_error', 'The connection to the provider failed.', { cause: error });
}
