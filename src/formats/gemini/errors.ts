import { buildErrorEnvelope, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { isRecord, readErrorBody, readString } from '../shared/index.ts';
import type { DecodedUpstreamError } from '../types.ts';

/** Google's canonical status for an HTTP status (AIP-193). */
export function googleStatus(status: number): string {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 402:
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 499:
      return 'CANCELLED';
    case 501:
      return 'UNIMPLEMENTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

/**
 * Google's error shape (`{error: {code: <HTTP status>, message, status}}`, what `@google/genai`
 * and gemini-cli read) with the spec envelope's other fields beside it: `error.code` is Google's
 * number, so the gateway's stable code rides as an `ErrorInfo` detail (`reason`, `domain:
 * "gateway"`, the field messages in `metadata`), and `request_id`, `retry_after`, `timestamp`
 * and `correlation_id` are where the envelope has them.
 */
export function encodeGeminiError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  const envelope = buildErrorEnvelope(error, ids);
  const metadata: Record<string, string> = {};
  const fields = (envelope.error.details as { fields?: unknown } | undefined)?.fields;
  if (isRecord(fields)) for (const [key, value] of Object.entries(fields)) metadata[key] = String(value);
  const inner: Record<string, unknown> = {
    code: error.status,
    message: envelope.error.message,
    status: googleStatus(error.status),
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code, domain: 'gateway', metadata }],
    request_id: ids.requestId,
  };
  if (envelope.error.retry_after !== undefined) inner.retry_after = envelope.error.retry_after;
  return { error: inner, timestamp: envelope.timestamp, correlation_id: envelope.correlation_id };
}

/** A mid-stream error: one more element (or SSE record) holding the same body, as Google sends it. */
export function encodeGeminiStreamError(error: GatewayError, ids: RequestIds): SseRecord {
  return jsonRecord(undefined, encodeGeminiError(error, ids));
}

/** An upstream Google error body → what it says (the status name as its type, the ErrorInfo reason as its code). */
export function decodeGeminiError(status: number, body: unknown): DecodedUpstreamError {
  const inner = isRecord(body) ? body.error : Array.isArray(body) && isRecord(body[0]) ? body[0].error : undefined;
  if (!isRecord(inner)) return readErrorBody(status, body);
  const out: DecodedUpstreamError = { message: readString(inner, 'message') || `The upstream provider returned HTTP ${status}.` };
  const type = readString(inner, 'status');
  if (type) out.type = type;
  const info = Array.isArray(inner.details) ? inner.details.find((d) => isRecord(d) && typeof d.reason === 'string') : undefined;
  if (isRecord(info)) out.code = String(info.reason);
  return out;
}

/** A stream element that is an error (`{"error": {…}}`); undefined for any other. */
export function decodeGeminiStreamError(record: SseRecord): DecodedUpstreamError | undefined {
  if (!record.data.trimStart().startsWith('{"error"')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(record.data);
  } catch {
    return undefined;
  }
  return isRecord(body) && isRecord(body.error) ? decodeGeminiError(Number(body.error.code) || 500, body) : undefined;
}
