import type { DecodedUpstreamError } from '../types.ts';
import { isRecord, readString } from './json.ts';

/**
 * What an upstream error body says, for the OpenAI shape (`{error:{message,type,param,code}}`),
 * the Anthropic shape (`{type:"error", error:{type,message}}`) and the looser shapes of
 * compatible providers (`{error:"…"}`, `{message:"…"}`, plain text).
 */
export function readErrorBody(status: number, body: unknown): DecodedUpstreamError {
  const inner = isRecord(body) ? body.error : undefined;
  if (isRecord(inner)) {
    const out: DecodedUpstreamError = { message: readString(inner, 'message') || fallbackMessage(status) };
    const type = readString(inner, 'type');
    const code = inner.code;
    if (type) out.type = type;
    if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
    const param = readString(inner, 'param');
    if (param) out.param = param;
    const filter = contentFilterResult(inner);
    if (filter) out.contentFilter = filter;
    return out;
  }
  if (typeof inner === 'string' && inner !== '') return { message: inner };
  if (isRecord(body) && typeof body.message === 'string' && body.message !== '') return { message: body.message };
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim().slice(0, 1000) };
  return { message: fallbackMessage(status) };
}

function fallbackMessage(status: number): string {
  return `The upstream provider returned HTTP ${status}.`;
}

/** Azure's categories of a content-filter refusal (`innererror.content_filter_result`), when small enough to pass on. */
export function contentFilterResult(error: Record<string, unknown>): Record<string, unknown> | undefined {
  const inner = error.innererror;
  const result = isRecord(inner) ? inner.content_filter_result : undefined;
  if (!isRecord(result) || JSON.stringify(result).length > 4096) return undefined;
  return result;
}
