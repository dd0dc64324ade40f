import type { SseRecord } from '../../sse/index.ts';
import type { DecodedUpstreamError } from '../types.ts';
import { readErrorBody, readErrorObject, readRecordObject } from '../shared/index.ts';
import { quotedFinder } from '../../util/index.ts';

const findError = quotedFinder('"error"');

/** An upstream OpenAI-style error body (`{error:{message,type,param,code}}`) → what it says. */
export function decodeChatError(status: number, body: unknown): DecodedUpstreamError {
  return readErrorBody(status, body);
}

/** A Chat stream's error record (`data: {"error":{…}}`) → what it says; undefined for any other record. */
export function decodeChatStreamError(record: SseRecord): DecodedUpstreamError | undefined {
  if (findError(record.data) === -1) return undefined;
  return readErrorObject(readRecordObject(record)?.error, 'The upstream reported an error.');
}
