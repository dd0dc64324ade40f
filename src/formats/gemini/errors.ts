import { buildErrorEnvelope, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { isRecord, readErrorBody, readString } from '../shared/index.ts';
import type { DecodedUpstreamError } from '../types.ts';
import { refusedLogprobsParam } from './map-logprobs.ts';

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
    case 405:
      // A method the resource does not have (grpc-gateway's answer to a wrong HTTP method), not a state to fix first.
      return 'UNIMPLEMENTED';
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
 * The HTTP status a Gemini client gets: Google's for the kind (AIP-193). Google never answers
 * 422: an invalid argument is 400 INVALID_ARGUMENT, so the spec's 422 validation_error is a 400
 * here (its code stays in the ErrorInfo reason). Every other status is the spec's.
 */
export function geminiErrorStatus(error: GatewayError): number {
  return error.status === 422 ? 400 : error.status;
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The wait a throttled answer names, in seconds: `retry_after`, else (a used-up monthly token
 * quota, which sends no Retry-After) the time left until `details.resets_at`.
 */
function waitOf(retryAfter: number | undefined, details: Record<string, unknown> | undefined): number | undefined {
  if (retryAfter !== undefined) return retryAfter;
  const resetsAt = details?.resets_at;
  return typeof resetsAt === 'number' ? Math.max(1, Math.ceil(resetsAt - Date.now() / 1000)) : undefined;
}

/**
 * Google's error shape (`{error: {code: <HTTP status>, message, status, details}}`, what
 * `@google/genai` and gemini-cli read) with the spec envelope's other fields beside it:
 * `error.code` is Google's number, so the gateway's stable code rides as an `ErrorInfo` detail
 * (`reason`, `domain: "gateway"`, the field messages in `metadata`); invalid fields are also a
 * `BadRequest` detail (`fieldViolations`), and a 429's wait a `RetryInfo` (`retryDelay`), which
 * gemini-cli waits for (over 300 s it stops instead of retrying), as Google sends them; none when the
 * upstream is out of credit (its message says "limit: 0", where gemini-cli stops). A Google
 * upstream's own details follow the gateway's.
 * `request_id`, `retry_after`, `timestamp` and `correlation_id` are where the envelope has them.
 */
export function encodeGeminiError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  const envelope = buildErrorEnvelope(error, ids);
  const status = geminiErrorStatus(error);
  const metadata: Record<string, string> = {};
  const fields = (envelope.error.details as { fields?: unknown } | undefined)?.fields;
  if (isRecord(fields)) for (const [key, value] of Object.entries(fields)) metadata[key] = String(value);
  const details: Record<string, unknown>[] = [{ '@type': ERROR_INFO, reason: error.code, domain: 'gateway', metadata }];
  const violations = Object.entries(metadata).map(([field, description]) => ({ field, description }));
  if (violations.length > 0) details.push({ '@type': BAD_REQUEST, fieldViolations: violations });
  // An upstream out of credit: no wait mends it, so no RetryInfo (gemini-cli would wait and ask again).
  const mendable = (envelope.error.details as { upstream_quota_exhausted?: unknown } | undefined)?.upstream_quota_exhausted !== true;
  const wait = status === 429 && mendable ? waitOf(envelope.error.retry_after, envelope.error.details) : undefined;
  // To the millisecond when the gateway knows it (gemini-cli reads fractions: "0.25s").
  if (wait !== undefined) details.push({ '@type': RETRY_INFO, retryDelay: error.retryAfterMs !== undefined ? `${error.retryAfterMs / 1000}s` : `${wait}s` });
  details.push(...upstreamDetailsOf(envelope.error.details));
  const inner: Record<string, unknown> = { code: status, message: envelope.error.message, status: googleStatus(status), details, request_id: ids.requestId };
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
  // A model without token log probabilities: the ask a converted request can be made again without (fit.withoutRefused).
  const param = status === 400 ? refusedLogprobsParam(out.message) : undefined;
  if (param) out.param = param;
  const details = Array.isArray(inner.details) ? inner.details.filter(isTyped) : [];
  const info = details.find((d) => typeof d.reason === 'string');
  if (info) out.code = String(info.reason);
  const retry = details.find((d) => d['@type'] === RETRY_INFO);
  const wait = retry ? millisecondsOf(retry.retryDelay) : undefined;
  if (wait !== undefined) {
    out.retryAfter = Math.ceil(wait / 1000);
    out.retryAfterMs = wait;
  }
  if (details.length > 0) out.upstreamDetails = details;
  return out;
}

/** A `google.protobuf.Any` in JSON: an object naming its `@type`. */
function isTyped(detail: unknown): detail is Record<string, unknown> {
  return isRecord(detail) && typeof detail['@type'] === 'string';
}

/**
 * The details a Google upstream sent with the failure (`QuotaFailure` with the quota's id, `Help`
 * links, its own `ErrorInfo` and `BadRequest`…), after the gateway's own: gemini-cli tells a used-up
 * daily quota (a `QuotaFailure` whose `quotaId` names the day) from a passing rate limit by them.
 * Its `RetryInfo` is left out: the gateway's says the same wait (the one the client is told).
 */
function upstreamDetailsOf(details: Record<string, unknown> | undefined): Record<string, unknown>[] {
  const relayed = details?.upstream_details;
  return Array.isArray(relayed) ? relayed.filter((d): d is Record<string, unknown> => isTyped(d) && d['@type'] !== RETRY_INFO) : [];
}

/** A proto Duration in JSON (`"7s"`, `"0.5s"`, `"31.123456s"`) as whole seconds, rounded up; undefined when it is not one. */
function millisecondsOf(duration: unknown): number | undefined {
  const match = typeof duration === 'string' ? /^(\d{1,9})(\.\d{1,9})?s$/.exec(duration) : null;
  return match ? Math.ceil(Number(match[1] + (match[2] ?? '')) * 1000) : undefined;
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
