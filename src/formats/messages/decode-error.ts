import type { SseRecord } from '../../sse/index.ts';
import type { DecodedUpstreamError } from '../types.ts';
import { isRecord, readErrorBody, readErrorObject, readRecordObject } from '../shared/index.ts';
import { quotedFinder } from '../../util/index.ts';

const findError = quotedFinder('"error"');

/**
 * An upstream Anthropic error body (`{type:"error", error:{type,message,details?}}`) → what it
 * says. Its `details` object (`error_code`: `thread_not_found`, `thread_unsupported_request`…,
 * what the SDK's message threads recover by) is kept, relayed to a Messages client.
 */
export function decodeMessagesError(status: number, body: unknown): DecodedUpstreamError {
  const out = readErrorBody(status, body);
  const details = isRecord(body) && isRecord(body.error) ? body.error.details : undefined;
  if (isRecord(details) && JSON.stringify(details).length <= 4096) out.upstreamDetails = [details];
  return out;
}

/** A Messages stream's `event: error` record → what it says; undefined for any other record. */
export function decodeMessagesStreamError(record: SseRecord): DecodedUpstreamError | undefined {
  if (record.event !== 'error' && !(record.event === undefined && findError(record.data) !== -1)) return undefined;
  const data = readRecordObject(record);
  if (!data || (record.event === undefined && data.type !== 'error')) return undefined;
  return readErrorObject(data.error, 'The upstream reported an error.');
}
