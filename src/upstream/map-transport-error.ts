import { errors as undiciErrors } from 'undici';
import { GatewayError, isGatewayError } from '../errors/index.ts';

/** Maps a transport failure (before or during the body) to the spec's provider codes. */
export function mapTransportError(error: unknown, signal?: { readonly aborted: boolean; readonly reason: unknown }): GatewayError {
  if (isGatewayError(error)) return error;
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    if (isGatewayError(reason)) return reason;
    return new GatewayError('provider_timeout', 'The request to the provider was aborted.', { cause: error });
  }
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    return new GatewayError('provider_timeout', 'The provider did not answer in time.', { cause: error });
  }
  const code = (error as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new GatewayError('provider_unavailable', 'The provider could not be reached.', { cause: error });
  }
  return new GatewayError('provider_error', 'The connection to the provider failed.', { cause: error });
}
