import type { SseRecord } from '../../sse/index.ts';
import type { DecodedUpstreamError } from '../types.ts';
import { readErrorBody, readErrorObject, readRecordObject } from '../shared/index.ts';
import { quotedFinder } from '../../util/index.ts';

const findError = quotedFinder('"error"');

/** An upstream Anthropic error body (`{type:"error", error:{type,message}}`) → what it says. */
export function decodeMessagesError(status: number, body: unknown): DecodedUpstreamError {
  return readErrorBody(status, body);
}

/** A Messages stream's `event: error` record → what it says; undefined for any other record. */
export function decodeMessagesStreamError(record: SseRecord): DecodedUpstreamError | undefined {
  if (record.event !== 'error' && !(record.event === undefined && findError(record.data) !== -1)) return undefined;
  const data = readRecordObject(record);
  if (!data || (record.event === undefined && data.type !== 'error')) return undefined;
  return readErrorObject(data.error, 'The upstream reported an error.');
}
