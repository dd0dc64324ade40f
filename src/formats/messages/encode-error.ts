import { buildErrorEnvelope, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { isRecord } from '../shared/index.ts';

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
  const details = withAnthropicDetails(envelope.error.details);
  return {
    type: 'error',
    ...envelope,
    error: { ...envelope.error, type: anthropicErrorType(error.status), ...(details ? { details } : {}) },
    request_id: ids.requestId,
  };
}

/**
 * An Anthropic upstream's own `error.details` (relayed in `upstream_details`, the one entry without
 * Google's `@type`) back in `error.details` where the SDK reads them: a message thread recovers
 * from `error_code` `thread_not_found` or `thread_unsupported_request` only when it sees it. The
 * gateway's own keys win.
 */
function withAnthropicDetails(details: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const relayed = Array.isArray(details?.upstream_details) ? (details.upstream_details as unknown[]).find((d) => isRecord(d) && d['@type'] === undefined) : undefined;
  return isRecord(relayed) ? { ...relayed, ...details } : undefined;
}

/** A mid-stream error as Anthropic sends it: `event: error` with the same body. */
export function encodeMessagesStreamError(error: GatewayError, ids: RequestIds): SseRecord {
  return jsonRecord('error', encodeMessagesError(error, ids));
}
