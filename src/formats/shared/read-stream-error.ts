import type { SseRecord } from '../../sse/index.ts';
import type { DecodedUpstreamError } from '../types.ts';
import { isRecord, readString, tryParseJson } from './json.ts';

/** The message, type, code and param of an error object (`{message, type, param, code}`), when it is one. */
export function readErrorObject(error: unknown, fallbackMessage: string): DecodedUpstreamError | undefined {
  if (!isRecord(error)) return undefined;
  const out: DecodedUpstreamError = { message: readString(error, 'message') || fallbackMessage };
  const type = readString(error, 'type');
  const code = error.code;
  if (type) out.type = type;
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
  const param = readString(error, 'param');
  if (param) out.param = param;
  return out;
}

/** The parsed data of a record, when it is a JSON object. */
export function readRecordObject(record: SseRecord): Record<string, unknown> | undefined {
  const data = tryParseJson(record.data);
  return isRecord(data) ? data : undefined;
}
