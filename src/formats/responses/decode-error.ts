import { isRecord, readRecord, readString, tryParseJson } from '../shared/index.ts';
import type { DecodedUpstreamError } from '../types.ts';

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
  return out;
}
