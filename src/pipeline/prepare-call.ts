import { getCodec } from '../formats/registry.ts';
import { validationError } from '../errors/index.ts';
import type { ChatRequest, WireFormat } from '../ir/types.ts';
import type { ChatCall } from '../plugin-kit/types.ts';
import type { CatalogModel } from '../providers/types.ts';
import { fitToModel } from './fit-to-model.ts';
import { hostedToolsPolicy, vendorTools, vendorToolsError } from './hosted-tools.ts';
import { replaceModelInRaw } from './replace-model.ts';
import type { ChatExchange } from './types.ts';

/** How a request goes upstream: the call, and whether its response passes through untouched. */
export interface PreparedCall {
  call: Omit<ChatCall, 'signal'>;
  upstreamFormat: WireFormat;
  passthrough: boolean;
  /** Chat passthrough streams where the gateway asked for usage the client did not: drop that chunk. */
  stripUsageChunk: boolean;
  /** What was changed to fit the target model (converted routes only), e.g. `max_tokens=16384`. */
  adapted?: string[];
  /** Hosted tools left out because the upstream cannot run them (policy 'drop'). */
  droppedTools?: string[];
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * The raw body of a non-empty JSON object with `stream_options` added last, so a streamed
 * passthrough keeps the client's bytes (no JSON.stringify of the whole request). Undefined
 * when the text does not end like an object with members.
 */
function withIncludeUsage(raw: string): string | undefined {
  let end = raw.length - 1;
  while (end > 0 && isJsonSpace(raw.charCodeAt(end))) end -= 1;
  if (raw.charCodeAt(end) !== 125 /* } */) return undefined;
  let before = end - 1;
  while (before > 0 && isJsonSpace(raw.charCodeAt(before))) before -= 1;
  if (raw.charCodeAt(before) === 123 /* { */) return undefined;
  return `${raw.slice(0, end)},"stream_options":{"include_usage":true}${raw.slice(end)}`;
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
  if (passthrough) {
    const capped = capPassthrough(exchange, model);
    if (capped) return capped;
    const needsUsage = upstreamFormat === 'chat' && request.stream && !request.includeUsage;
    if (!needsUsage) {
      const raw = replaceModelInRaw(exchange.raw, String(exchange.body.model), model.upstreamId);
      const body = raw === exchange.raw ? exchange.body : withField(exchange.body, 'model', model.upstreamId);
      return { call: callOf(upstreamFormat, model, request, exchange, body, raw ?? JSON.stringify(body)), upstreamFormat, passthrough, stripUsageChunk: false };
    }
    const streamOptions = withField((exchange.body.stream_options as Record<string, unknown> | undefined) ?? {}, 'include_usage', true);
    const body = withField(withField(exchange.body, 'model', model.upstreamId), 'stream_options', streamOptions);
    const raw = exchange.body.stream_options === undefined ? replaceModelInRaw(exchange.raw, String(exchange.body.model), model.upstreamId) : undefined;
    const rawBody = (raw === undefined ? undefined : withIncludeUsage(raw)) ?? JSON.stringify(body);
    return { call: callOf(upstreamFormat, model, request, exchange, body, rawBody), upstreamFormat, passthrough, stripUsageChunk: true };
  }
  const references = checkReferences(request, model);
  const tools = vendorTools(request);
  const dropped = tools && tools.format !== upstreamFormat ? tools.types : undefined;
  if (dropped && tools && hostedToolsPolicy(model) === 'reject') throw vendorToolsError(tools, model.id);
  // `extra` (hosted tools included) holds fields only the inbound format knows; another format's upstream would reject them.
  const portable = upstreamFormat === exchange.format ? request : (withField(request as unknown as Record<string, unknown>, 'extra', undefined) as unknown as ChatRequest);
  const fitted = fitToModel(portable, model, upstreamFormat);
  const autoCache = upstreamFormat === 'messages' && exchange.format !== 'messages' && (model.spec.promptCache ?? model.provider.promptCache ?? 'auto') === 'auto';
  const body = getCodec(upstreamFormat).encodeRequest(fitted.request, { upstreamModel: model.upstreamId, defaultMaxTokens: options.defaultMaxTokens, autoCache });
  if (upstreamFormat === 'chat' && request.stream) {
    body.stream_options = withField((body.stream_options as Record<string, unknown> | undefined) ?? {}, 'include_usage', true);
  }
  const prepared: PreparedCall = { call: callOf(upstreamFormat, model, request, exchange, body, JSON.stringify(body)), upstreamFormat, passthrough: false, stripUsageChunk: false };
  if (references) fitted.adapted.push(`item_reference=dropped(${references.length})`);
  if (fitted.adapted.length > 0) prepared.adapted = fitted.adapted;
  if (dropped) prepared.droppedTools = dropped;
  return prepared;
}

/** The output-cap field of each format. */
const CAP_FIELD: Record<WireFormat, string[]> = { chat: ['max_tokens', 'max_completion_tokens'], responses: ['max_output_tokens'], messages: ['max_tokens'] };

/**
 * A same-format request whose output cap is above the model's known maximum would only be
 * refused upstream (SDKs pick 128k for ids they do not know, such as the gateway's
 * `provider/model`): the cap is lowered to the maximum and the body re-serialized, the one
 * passthrough edit besides the model id. Undefined when nothing needs it.
 */
function capPassthrough(exchange: ChatExchange, model: CatalogModel): PreparedCall | undefined {
  const max = model.spec.maxOutputTokens;
  if (max === undefined) return undefined;
  const body = exchange.body;
  const over = CAP_FIELD[exchange.format].filter((field) => typeof body[field] === 'number' && (body[field] as number) > max);
  if (over.length === 0) return undefined;
  let fitted = withField(body, 'model', model.upstreamId);
  for (const field of over) fitted = withField(fitted, field, max);
  const thinking = fitted.thinking as { budget_tokens?: unknown } | undefined;
  // Anthropic wants the thinking budget below max_tokens.
  if (exchange.format === 'messages' && typeof thinking?.budget_tokens === 'number' && thinking.budget_tokens >= max) fitted = withField(fitted, 'thinking', { ...thinking, budget_tokens: Math.max(1024, max - 1024) });
  const stripUsageChunk = exchange.format === 'chat' && fitted.stream === true && !(fitted.stream_options as { include_usage?: unknown } | undefined)?.include_usage;
  if (stripUsageChunk) fitted = withField(fitted, 'stream_options', withField((fitted.stream_options as Record<string, unknown> | undefined) ?? {}, 'include_usage', true));
  const call = { format: exchange.format, model: model.upstreamId, stream: fitted.stream === true, headers: headersFor(exchange.format, exchange.forwardHeaders), body: fitted, rawBody: JSON.stringify(fitted) };
  return { call, upstreamFormat: exchange.format, passthrough: true, stripUsageChunk, adapted: over.map((field) => `${field}=${max}`) };
}

/**
 * Unresolved item_references on a converted route: reasoning items (`rs_…`, what the AI SDK
 * references with `store`) are dropped — a converted upstream cannot replay another vendor's
 * reasoning anyway, and Anthropic thinking is then switched off for that turn — anything else is
 * a 422 naming the id. Returns the dropped ids.
 */
function checkReferences(request: ChatRequest, model: CatalogModel): string[] | undefined {
  const ids = request.unresolvedReferences;
  if (!ids) return undefined;
  const needed = ids.filter((id) => !id.startsWith('rs_'));
  if (needed.length > 0) {
    throw validationError(
      { input: `item_reference '${needed[0]}' cannot be resolved` },
      `Cannot resolve item_reference '${needed[0]}': model '${model.id}' is served by an upstream that does not speak the Responses API, and the gateway holds no such item; send the item itself instead of a reference.`,
    );
  }
  return ids;
}

/** The call, spelled out: on Node 20, `{ ...base, newKey }` costs ~0.45 µs per new key. */
function callOf(
  format: WireFormat,
  model: CatalogModel,
  request: ChatRequest,
  exchange: ChatExchange,
  body: Record<string, unknown>,
  rawBody: string,
): Omit<ChatCall, 'signal'> {
  return { format, model: model.upstreamId, stream: request.stream, headers: headersFor(format, exchange.forwardHeaders), body, rawBody };
}

/** `anthropic-beta` goes only to Messages upstreams, `openai-beta` only to OpenAI-format ones. */
function headersFor(format: WireFormat, headers: Record<string, string>): Record<string, string> {
  const foreign = format === 'messages' ? 'openai-beta' : 'anthropic-beta';
  if (headers[foreign] === undefined) return headers;
  const out = Object.assign({}, headers);
  delete out[foreign];
  return out;
}

/** A copy of `object` with one field set (kept in place if present, else last), like `{ ...object, [key]: value }`. */
function withField(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = Object.assign({}, object);
  copy[key] = value;
  return copy;
}
