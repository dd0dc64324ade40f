import { buildErrorEnvelope, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';

/** The Anthropic `error.type` for a status (wire-formats §2.10). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/**
 * The spec §7 envelope plus Anthropic's native fields (`type:"error"`, `error.type`,
 * `request_id`), so the Anthropic SDK reads it as one of its own errors.
 */
export function encodeMessagesError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  const envelope = buildErrorEnvelope(error, ids);
  return {
    type: 'error',
    ...envelope,
    error: { ...envelope.error, type: anthropicErrorType(error.status) },
    request_id: ids.requestId,
  };
}

/** A mid-stream error as Anthropic sends it: `event: error` with the same body. */
export function encodeMessagesStreamError(error: GatewayError, ids: RequestIds): SseRecord {
  return jsonRecord('error', encodeMessagesError(error, ids));
}
