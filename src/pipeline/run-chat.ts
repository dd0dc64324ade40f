import { GatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/registry.ts';
import type { ChatRequest } from '../ir/types.ts';
import { readBody } from '../plugin-kit/read-body.ts';
import { mapTransportError } from '../plugin-kit/http-client.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { CatalogModel } from '../providers/types.ts';
import { callUpstream, type UpstreamSuccess } from './call-upstream.ts';
import { estimateInputTokens } from './estimate-usage.ts';
import { prepareCall, type PreparedCall } from './prepare-call.ts';
import { relayStream } from './relay-stream.ts';
import type { ChatExchange, ChatOutcome, Settlement } from './types.ts';

export interface ChatPipelineDeps {
  registry: ProviderRegistry;
  defaultMaxTokens: number;
}

/** Decodes and validates the inbound body; every format validates the same way. */
export function decodeInbound(exchange: ChatExchange): ChatRequest {
  return getCodec(exchange.format).decodeRequest(exchange.body);
}

function chatCandidates(deps: ChatPipelineDeps, requested: string): CatalogModel[] {
  const { candidates } = deps.registry.resolve(requested);
  const usable = candidates.filter((m) => (m.spec.type ?? 'chat') === 'chat' && m.provider.instance.chat);
  if (usable.length === 0) {
    throw new GatewayError('bad_request', `The model '${requested}' is not a chat model.`, { details: { model: requested } });
  }
  return usable.sort((a, b) => a.provider.priority - b.provider.priority);
}

/** Runs one chat-like exchange: route, call upstream (falling back on retryable errors), relay. */
export async function runChat(deps: ChatPipelineDeps, exchange: ChatExchange, request = decodeInbound(exchange)): Promise<ChatOutcome> {
  const candidates = chatCandidates(deps, request.model);
  let lastError: GatewayError | undefined;
  for (const model of candidates) {
    const prepared = prepareCall(exchange, request, model, { defaultMaxTokens: deps.defaultMaxTokens });
    let upstream: UpstreamSuccess;
    try {
      upstream = await callUpstream(model, prepared.call, exchange.signal);
    } catch (error) {
      lastError = error instanceof GatewayError ? error : mapTransportError(error);
      if (!lastError.retryable || exchange.signal.aborted) throw lastError;
      continue;
    }
    return request.stream ? streamOutcome(exchange, request, model, prepared, upstream) : jsonOutcome(exchange, request, model, prepared, upstream);
  }
  throw lastError ?? new GatewayError('provider_unavailable', 'No provider could serve the request.');
}

async function jsonOutcome(
  exchange: ChatExchange,
  request: ChatRequest,
  model: CatalogModel,
  prepared: PreparedCall,
  upstream: UpstreamSuccess,
): Promise<ChatOutcome> {
  let text: string;
  try {
    text = (await readBody(upstream.response.body)).toString('utf8');
  } catch (error) {
    throw mapTransportError(error, upstream.signal);
  } finally {
    upstream.done();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError('provider_error', `The provider '${model.provider.id}' returned a body that is not JSON.`);
  }
  const upstreamCodec = getCodec(prepared.upstreamFormat);
  let json: string;
  let settlement: Settlement;
  if (prepared.passthrough) {
    const info = upstreamCodec.readPassthroughResponse(parsed);
    json = text;
    settlement = {
      model,
      usage: info.usage ?? { inputTokens: estimateInputTokens(request), outputTokens: 0 },
      estimated: !info.usage,
      aborted: false,
      responseId: info.id,
    };
  } else {
    const response = upstreamCodec.decodeResponse(parsed);
    json = JSON.stringify(getCodec(exchange.format).encodeResponse(response, request));
    settlement = { model, usage: response.usage, estimated: false, aborted: false, responseId: response.id };
  }
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    json,
    settled: Promise.resolve(settlement),
    request,
    model,
  };
}

function streamOutcome(
  exchange: ChatExchange,
  request: ChatRequest,
  model: CatalogModel,
  prepared: PreparedCall,
  upstream: UpstreamSuccess,
): ChatOutcome {
  let resolve!: (s: Settlement) => void;
  const settled = new Promise<Settlement>((r) => (resolve = r));
  const stream = relayStream({
    upstream,
    upstreamFormat: prepared.upstreamFormat,
    clientFormat: exchange.format,
    request,
    ids: exchange.ids,
    clientSignal: exchange.signal,
    passthrough: prepared.passthrough,
    stripUsageChunk: prepared.stripUsageChunk,
    onEnd: (end) => resolve({ model, ...end }),
  });
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' },
    stream,
    settled,
    request,
    model,
  };
}
