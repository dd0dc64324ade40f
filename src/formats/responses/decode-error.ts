import type { SseRecord } from '../../sse/index.ts';
import { contentFilterResult, isRecord, readErrorObject, readRecord, readRecordObject, readString, tryParseJson } from '../shared/index.ts';
import type { DecodedUpstreamError } from '../types.ts';
import { quotedFinder } from '../../util/index.ts';

const findError = quotedFinder('"error"');
const findFailed = quotedFinder('"response.failed"');

/** An upstream error body (`{error:{message,type,param,code}}`, or text) → message, type, code. */
export function decodeResponsesError(status: number, body: unknown): DecodedUpstreamError {
  const parsed = typeof body === 'string' ? (tryParseJson(body) ?? body) : body;
  if (typeof parsed === 'string' && parsed.trim().length > 0) return { message: parsed.trim().slice(0, 1000) };
  const root = isRecord(parsed) ? parsed : {};
  const error = readRecord(root, 'error') ?? (typeof root.error === 'string' ? { message: root.error } : root);
  const out: DecodedUpstreamError = { message: readString(error, 'message') ?? `The upstream returned HTTP ${status}.` };
  const type = readString(error, 'type');
  const code = readString(error, 'code') ?? (typeof error.code === 'number' ? String(error.code) : undefined);
  if (type) out.type = type;
  if (code) out.code = code;
  const param = readString(error, 'param');
  if (param) out.param = param;
  const filter = contentFilterResult(error);
  if (filter) out.contentFilter = filter;
  return out;
}

/**
 * A Responses stream's `error` event (flat `code`/`message`, or a nested `error`) or
 * `response.failed` (its `response.error`) → what it says; undefined for any other record.
 */
export function decodeResponsesStreamError(record: SseRecord): DecodedUpstreamError | undefined {
  const event = record.event;
  if (event !== undefined && event !== 'error' && event !== 'response.failed') return undefined;
  if (event === undefined && findError(record.data) === -1 && findFailed(record.data) === -1) return undefined;
  const data = readRecordObject(record);
  if (!data) return undefined;
  const type = event ?? readString(data, 'type');
  const fallback = 'The upstream reported an error.';
  if (type === 'response.failed') return readErrorObject(readRecord(readRecord(data, 'response') ?? {}, 'error'), fallback) ?? { message: 'The upstream response failed.' };
  if (type !== 'error') return undefined;
  // The kind is in `code` (flat) or in the nested error's `code` or `type`.
  const nested = readErrorObject(data.error, fallback);
  const flat = readErrorObject(data, fallback)!;
  const out: DecodedUpstreamError = { message: readString(data, 'message') ?? nested?.message ?? fallback };
  const code = flat.code ?? nested?.code;
  const kind = nested?.type;
  const param = flat.param ?? nested?.param;
  if (code !== undefined) out.code = code;
  if (kind !== undefined) out.type = kind;
  if (param !== undefined) out.param = param;
  return out;
}
