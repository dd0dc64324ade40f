import { buildErrorEnvelope, errorParam, type GatewayError, type RequestIds } from '../../errors/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { redactSecrets } from '../../util/index.ts';
import { openAiErrorType } from './map-error.ts';

/** The spec §7 envelope, whose OpenAI `error.type` and `error.param` the openai SDK reads (the same as on the Chat routes). */
export function encodeResponsesError(error: GatewayError, ids: RequestIds): Record<string, unknown> {
  return buildErrorEnvelope(error, ids);
}

/**
 * One `event: error` record. It carries the flat fields of the SDK's ResponseErrorEvent and the
 * nested `error` object OpenAI itself sends; the nested one makes the openai SDK throw an APIError
 * (with message, code and type) instead of handing the event on as a chunk.
 */
export function encodeStreamErrorEvent(code: string, message: string, param: string | null, sequenceNumber: number, requestId?: string): SseRecord {
  message = redactSecrets(message);
  const nested: Record<string, unknown> = { type: openAiErrorType(code), code, message, param };
  if (requestId !== undefined) nested.request_id = requestId;
  return jsonRecord('error', { type: 'error', sequence_number: sequenceNumber, code, message, param, error: nested });
}

/**
 * The error record for a stream this codec's encoder did not produce (e.g. a passthrough).
 * Pass the number after the last upstream `sequence_number` (`nextSequenceNumber(tap)`, as the codec does);
 * a stream our encoder produces should get `encoder.encode({ type: 'error', error })` instead.
 */
export function encodeResponsesStreamError(error: GatewayError, ids: RequestIds, sequenceNumber = 0): SseRecord {
  return encodeStreamErrorEvent(error.code, error.message, errorParam(error.details), sequenceNumber, ids.requestId);
}
