import { buildErrorEnvelope, errorParam, openAIErrorType, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { redactSecrets } from '../../util/index.ts';
import type { PassthroughInfo } from '../types.ts';
import { openAiErrorType } from './map-error.ts';
import { encodeUsage } from './map-usage.ts';
import { createItemId } from './create-id.ts';

/** The spec §7 envelope, whose OpenAI `error.type` and `error.param` the openai SDK reads (the same as on the Chat routes). */
export function encodeResponsesError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  return buildErrorEnvelope(error, ids);
}

/**
 * One `event: error` record. It carries the flat fields of the SDK's ResponseErrorEvent and the
 * nested `error` object OpenAI itself sends; the nested one makes the openai SDK throw an APIError
 * (with message, code and type) instead of handing the event on as a chunk.
 */
export function encodeStreamErrorEvent(code: string, message: string, param: string | null, sequenceNumber: number, requestId?: string, type = openAiErrorType(code)): SseRecord {
  message = redactSecrets(message);
  const nested: Record<string, unknown> = { type, code, message, param };
  if (requestId !== undefined) nested.request_id = requestId;
  return jsonRecord('error', { type: 'error', sequence_number: sequenceNumber, code, message, param, error: nested });
}

/**
 * The error record for a stream this codec's encoder did not produce (e.g. a passthrough).
 * Pass the number after the last upstream `sequence_number` (`nextSequenceNumber(tap)`, as the codec does);
 * a stream our encoder produces should get `encoder.encode({ type: 'error', error })` instead.
 */
export function encodeResponsesStreamError(error: GatewayError, ids: RequestIds, sequenceNumber = 0): SseRecord {
  // The type the HTTP answer would have (an upstream out of credit: `insufficient_quota`, not `rate_limit_error`).
  const type = openAIErrorType(error.status, error.code, error.details);
  return encodeStreamErrorEvent(error.code, error.message, errorParam(error.details), sequenceNumber, ids.requestId, type);
}

/** OpenAI's code for a prompt over the model's context window: Codex reads it as ContextWindowExceeded. */
const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

/** True for an upstream's refusal of a prompt over the context window, in whatever words (classify-upstream-error marks it). */
function isContextOverflow(error: GatewayError): boolean {
  return error.details?.context_overflow === true;
}

/**
 * The code of a failed response's `response.error`, in OpenAI's words where Codex reads them:
 * `insufficient_quota` for credit that ran out (Codex: QuotaExceeded), `context_length_exceeded`
 * for a prompt over the context window (Codex compacts or says it ran out of room),
 * `invalid_prompt` for any other refusal of the request (Codex stops; it retried a `bad_request`
 * or `content_filter` five times); else (a provider's failure, a throttle) the gateway's code,
 * which Codex retries as it retries OpenAI's `server_error`. The `error` event and an HTTP answer
 * keep the spec's code.
 */
export function failedResponseCode(error: GatewayError): string {
  if (isContextOverflow(error)) return CONTEXT_LENGTH_EXCEEDED;
  if (openAIErrorType(error.status, error.code, error.details) === 'insufficient_quota') return 'insufficient_quota';
  // A refusal of the request (a 4xx but a throttle): OpenAI's `invalid_prompt`, where Codex stops; it retries the turn on any other code.
  if (error.status >= 400 && error.status < 500 && error.status !== 429) return 'invalid_prompt';
  return error.code;
}

/**
 * The end of a stream this codec did not produce (a passthrough) that failed: the `error` event,
 * then `response.failed` with the same code in `response.error`, as the Responses encoder ends a
 * converted stream. Codex and the AI SDK read the failure from `response.failed` (Codex picks
 * retry, context-window or quota handling by its code); `info` is what the passthrough's records
 * said of the response (its id, model, usage so far).
 */
export function encodeResponsesStreamFailure(error: GatewayError, ids: RequestIds, sequenceNumber: number, info: PassthroughInfo): SseRecord[] {
  const record = encodeResponsesStreamError(error, ids, sequenceNumber);
  return [record, failedResponseRecord({ code: failedResponseCode(error), message: redactSecrets(error.message) }, sequenceNumber + 1, info)];
}

/** A `response.failed` record for a stream whose records the gateway did not make: `info` is what they said of the response. */
export function failedResponseRecord(error: { code: string | null; message: string }, sequenceNumber: number, info: PassthroughInfo): SseRecord {
  const response: Record<string, unknown> = {
    id: info.id ?? null,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'failed',
    model: info.model ?? null,
    output: [],
    error,
    incomplete_details: null,
    usage: info.usage ? encodeUsage(info.usage) : null,
  };
  return jsonRecord('response.failed', { type: 'response.failed', sequence_number: sequenceNumber, response });
}

/**
 * A failure before the stream started that OpenAI reports inside a 200 stream, not with a status:
 * a prompt over the context window. OpenAI streams `response.created`, `response.in_progress`,
 * the `error` event and `response.failed` (`context_length_exceeded`), and Codex reads it only
 * from there or from that code in a 400's `error.code`, which on our envelope stays the spec's
 * `bad_request` (docs/api-decisions.md). Undefined for any other failure (answered with its status).
 */
export function encodeResponsesStreamedRefusal(error: GatewayError, ids: RequestIds, model: string | undefined): SseRecord[] | undefined {
  if (!isContextOverflow(error)) return undefined;
  const id = createItemId('resp');
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'in_progress', model: model ?? null, output: [], error: null, incomplete_details: null, usage: null };
  return [
    jsonRecord('response.created', { type: 'response.created', sequence_number: 0, response }),
    jsonRecord('response.in_progress', { type: 'response.in_progress', sequence_number: 1, response }),
    ...encodeResponsesStreamFailure(error, ids, 2, { id, model }),
  ];
}
