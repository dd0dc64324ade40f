import { getCodec } from '../formats/registry.ts';
import type { ChatRequest, WireFormat } from '../ir/types.ts';
import type { ChatCall } from '../plugin-kit/types.ts';
import type { CatalogModel } from '../providers/types.ts';
import { replaceModelInRaw } from './replace-model.ts';
import type { ChatExchange } from './types.ts';

/** How a request goes upstream: the call, and whether its response passes through untouched. */
export interface PreparedCall {
  call: Omit<ChatCall, 'signal'>;
  upstreamFormat: WireFormat;
  passthrough: boolean;
  /** Chat passthrough streams where the gateway asked for usage the client did not: drop that chunk. */
  stripUsageChunk: boolean;
}

/** Picks the upstream format (the client's own when the upstream speaks it) and encodes the body. */
export function prepareCall(
  exchange: ChatExchange,
  request: ChatRequest,
  model: CatalogModel,
  options: { defaultMaxTokens: number; forceConversion?: boolean },
): PreparedCall {
  const passthrough = !options.forceConversion && model.formats.includes(exchange.format);
  const upstreamFormat = passthrough ? exchange.format : model.formats[0];
  const base = { format: upstreamFormat, model: model.upstreamId, stream: request.stream, headers: exchange.forwardHeaders };
  if (passthrough) {
    const needsUsage = upstreamFormat === 'chat' && request.stream && !request.includeUsage;
    if (!needsUsage) {
      const raw = replaceModelInRaw(exchange.raw, String(exchange.body.model), model.upstreamId);
      const body = raw === exchange.raw ? exchange.body : { ...exchange.body, model: model.upstreamId };
      return { call: { ...base, body, rawBody: raw ?? JSON.stringify(body) }, upstreamFormat, passthrough, stripUsageChunk: false };
    }
    const streamOptions = { ...(exchange.body.stream_options as Record<string, unknown> | undefined), include_usage: true };
    const body = { ...exchange.body, model: model.upstreamId, stream_options: streamOptions };
    return { call: { ...base, body, rawBody: JSON.stringify(body) }, upstreamFormat, passthrough, stripUsageChunk: true };
  }
  // `extra` holds fields only the inbound format knows; another format's upstream would reject them.
  const portable = upstreamFormat === exchange.format ? request : { ...request, extra: undefined };
  const body = getCodec(upstreamFormat).encodeRequest(portable, { upstreamModel: model.upstreamId, defaultMaxTokens: options.defaultMaxTokens });
  if (upstreamFormat === 'chat' && request.stream) {
    body.stream_options = { ...(body.stream_options as Record<string, unknown> | undefined), include_usage: true };
  }
  return { call: { ...base, body, rawBody: JSON.stringify(body) }, upstreamFormat, passthrough: false, stripUsageChunk: false };
}
