import { compactionRequest, framingOf, getFormat, type PassthroughTarget } from '../formats/index.ts';
import { GatewayError, isGatewayError, renameFields, validationError } from '../errors/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import type { ChatCall } from '../plugin-kit/index.ts';
import { baseModelOf, modalitiesOf, type CatalogModel } from '../providers/index.ts';
import { fitToModel, knownNotToReason } from './fit-to-model.ts';
import { fitToolNames, type ToolNames } from './fit-tool-names.ts';
import { hostedToolsPolicy, unrunnableTools, vendorTools, vendorToolsError } from './hosted-tools.ts';
import { replaceModelInRaw } from './replace-model.ts';
import type { ChatExchange } from './types.ts';
import { withField } from '../util/index.ts';
import { InboundRequest } from './inbound.ts';

/** What prepareCall reads of an exchange: the inbound format, its body (parsed and as text), the headers to forward. */
export type CallSource = Pick<ChatExchange, 'format' | 'raw' | 'body' | 'forwardHeaders' | 'target' | 'compact'>;

/** How a request goes upstream: the call, and whether its response passes through untouched. */
export interface PreparedCall {
  call: Omit<ChatCall, 'signal'>;
  upstreamFormat: WireFormat;
  passthrough: boolean;
  /** The gateway asked for usage records the client did not (a passthrough stream): they are dropped. */
  stripUsageChunk: boolean;
  /** What was changed to fit the target model (converted routes only), e.g. `max_tokens=16384`. */
  adapted?: string[];
  /** Hosted tools left out because the upstream cannot run them (policy 'drop'). */
  droppedTools?: string[];
  /** A compact body passed through: sent to the provider's `compactResponses`, not its `chat`. */
  compact?: boolean;
  /** Tool names the upstream got in place of the client's (converted routes only): its answer's are mapped back. */
  toolNames?: ToolNames;
  /** Stop sequences the upstream could not take (converted routes only): its answer is cut at them. */
  stop?: string[];
  /**
   * The client asked for OpenRouter's usage accounting: its answer's usage carries the gateway's
   * charge (ChatOutcome.reportCost). Set only with `adapted` (then maybe empty), so a request
   * without it is asked nothing more.
   */
  reportCost?: boolean;
  /** The ask last left out was refused by the model, not the account (fit.withoutRefused's `byModel`): remembered for the model. */
  refusedByModel?: boolean;
}

/**
 * A same-format body with the upstream's model id, as bytes as close to the client's as can
 * be: the model is rewritten in place. A body without a `model` key (a format whose routes
 * carry the model in the path) keeps having none.
 */
function withUpstreamModel(exchange: CallSource, upstreamId: string): { body: Record<string, unknown>; raw: string } {
  const { body, raw } = exchange;
  const model = body.model;
  if (typeof model !== 'string') return { body, raw };
  const replaced = replaceModelInRaw(raw, model, upstreamId);
  if (replaced === raw) return { body, raw };
  const copy = withField(body, 'model', upstreamId);
  return { body: copy, raw: replaced ?? JSON.stringify(copy) };
}

/** Picks the upstream format (the client's own when the upstream speaks it) and encodes the body. */
export function prepareCall(
  exchange: CallSource,
  inbound: InboundRequest | ChatRequest,
  model: CatalogModel,
  options: { defaultMaxTokens: number; forceConversion?: boolean },
): PreparedCall {
  // A compact body passes through only to an upstream with the route; anywhere else the model summarizes (compaction.ts).
  const compact = exchange.compact === true;
  const passthrough = !options.forceConversion && model.formats.includes(exchange.format) && (!compact || model.provider.instance.compactResponses !== undefined);
  const upstreamFormat = passthrough ? exchange.format : model.formats[0];
  const stream = inbound instanceof InboundRequest ? inbound.facts.stream : inbound.stream;
  if (passthrough) {
    // Not decoded: only what billing and routing read was (the facts); the upstream judges the rest.
    const capped = capPassthrough(exchange, inbound, model, stream);
    if (capped) return capped;
    const { body, raw } = withUpstreamModel(exchange, model.upstreamId);
    // The format's own tweaks (Chat: a stream asks for usage); nothing else changes.
    const tweaked = getFormat(upstreamFormat).passthrough.prepare?.({ body, raw, stream }, passthroughTarget(model));
    const call = callOf(upstreamFormat, model, stream, exchange, tweaked?.body ?? body, tweaked?.raw ?? raw);
    // A passthrough stream keeps the client's framing (a format with several: Gemini's alt=sse or a JSON array).
    const framing = upstreamFramingOf(exchange);
    if (framing !== undefined) call.framing = framing;
    const prepared: PreparedCall = { call, upstreamFormat, passthrough, stripUsageChunk: tweaked?.dropUsageRecords === true };
    if (tweaked?.adapted) {
      prepared.adapted = tweaked.adapted;
      if (tweaked.reportCost) prepared.reportCost = true;
    }
    if (tweaked?.convertAnswer) answerConverted(prepared, inbound);
    if (compact) prepared.compact = true;
    return prepared;
  }
  // A conversion (or a fallback to another format) needs the IR: decoded here, once.
  const decoded = inbound instanceof InboundRequest ? inbound.ir : inbound;
  const request = compact || decoded.compaction ? compactionRequest(decoded) : decoded;
  const references = checkConvertible(request, model);
  const tools = vendorTools(request, exchange.format);
  const unrunnable = tools ? unrunnableTools(tools, upstreamFormat) : [];
  const dropped = unrunnable.length > 0 ? unrunnable : undefined;
  if (dropped && tools && hostedToolsPolicy(model) === 'reject') throw vendorToolsError(tools, model.id, dropped);
  // `extra` (hosted tools included) holds fields only the inbound format knows; another format's upstream would reject them.
  const converted = upstreamFormat !== exchange.format;
  let portable = converted ? (withField(request as unknown as Record<string, unknown>, 'extra', undefined) as unknown as ChatRequest) : request;
  // A web search the upstream cannot run goes with the other dropped tools.
  if (portable.webSearch && dropped?.some((type) => tools!.webSearch.includes(type))) portable = withField(portable as unknown as Record<string, unknown>, 'webSearch', undefined) as unknown as ChatRequest;
  const fitted = fitFor(portable, model, upstreamFormat, exchange.format);
  // Formats with explicit cache markers (Messages) place them on a converted request.
  const autoCache = converted && (model.spec.promptCache ?? model.provider.promptCache ?? 'auto') === 'auto';
  const named = fitToolNames(fitted.request, upstreamFormat);
  const body = getFormat(upstreamFormat).codec.encodeRequest(named.request, { upstreamModel: model.upstreamId, baseModel: baseModelOf(model), defaultMaxTokens: options.defaultMaxTokens, autoCache, converted });
  const prepared: PreparedCall = { call: callOf(upstreamFormat, model, stream, exchange, body, JSON.stringify(body)), upstreamFormat, passthrough: false, stripUsageChunk: false };
  if (references) fitted.adapted.push(`item_reference=dropped(${references.length})`);
  if (named.names) {
    prepared.toolNames = named.names;
    fitted.adapted.push(`tool_names=shortened(${named.names.size})`);
  }
  if (request.reportCost) {
    prepared.adapted = fitted.adapted;
    prepared.reportCost = true;
  } else if (fitted.adapted.length > 0) prepared.adapted = fitted.adapted;
  if (fitted.stop) prepared.stop = fitted.stop;
  if (dropped) prepared.droppedTools = dropped;
  return prepared;
}

/**
 * A passthrough body whose answer is converted all the same (PreparedPassthrough.convertAnswer: the
 * client's `reasoning.exclude`, which the upstream never hears of): the answer is decoded and
 * encoded again against the request's IR, decoded now so that a body its decoder refuses is
 * refused before the call. Rare: only bodies that ask for it.
 */
function answerConverted(prepared: PreparedCall, inbound: InboundRequest | ChatRequest): void {
  if (inbound instanceof InboundRequest) void inbound.ir;
  prepared.passthrough = false;
  prepared.stripUsageChunk = false;
}

/**
 * The ask an upstream refused for the account, not the request (a 400 naming a param the target
 * format's `fit.withoutRefused` can leave out: OpenAI's reasoning summary for an unverified
 * organization); undefined when the refusal stands.
 */
export function refusedAsk(prepared: PreparedCall, error: unknown): string | undefined {
  if (prepared.passthrough || !isGatewayError(error) || error.details?.upstream_status !== 400) return undefined;
  const param = error.details.param;
  return typeof param === 'string' && withoutAsk(prepared, param) ? param : undefined;
}

/** A converted call without `param` (said in `adapted`); undefined when it does not ask for it or the format cannot leave it out. */
export function withoutAsk(prepared: PreparedCall, param: string): PreparedCall | undefined {
  if (prepared.passthrough) return undefined;
  const refit = getFormat(prepared.upstreamFormat).fit?.withoutRefused?.(prepared.call.body, param);
  if (!refit) return undefined;
  const call = { ...prepared.call, body: refit.body, rawBody: JSON.stringify(refit.body) };
  return { ...prepared, call, adapted: [...(prepared.adapted ?? []), refit.adapted], refusedByModel: refit.byModel === true };
}

/**
 * A converted call once more without an ask the upstream refused for the account, not the
 * request (the target format's `fit.withoutRefused`: OpenAI's reasoning summary for an
 * unverified organization), said in `adapted`; undefined when the refusal stands.
 */
export function withoutRefusedAsk(prepared: PreparedCall, error: unknown): PreparedCall | undefined {
  const param = refusedAsk(prepared, error);
  return param === undefined ? undefined : withoutAsk(prepared, param);
}

/** What a passthrough's `prepare` is told of its upstream (Chat fits OpenRouter's fields to one that is not OpenRouter). */
function passthroughTarget(model: CatalogModel): PassthroughTarget {
  return new UpstreamFacts(model);
}

/**
 * What a passthrough's format may ask of its upstream. The base id and whether the model reasons
 * are read only by a body carrying OpenRouter's fields (rare), so they are getters, on a class:
 * an object literal with accessors is made by V8's slow path (~0.5 µs, a dictionary-mode object)
 * on every request, a class instance in a few nanoseconds (test/architecture keeps literals
 * without accessors).
 */
class UpstreamFacts implements PassthroughTarget {
  readonly openRouterFields: boolean;
  constructor(private readonly model: CatalogModel) {
    this.openRouterFields = model.provider.openRouterFields === 'forward';
  }
  get baseModel(): string {
    return baseModelOf(this.model);
  }
  get noReasoning(): boolean {
    return knownNotToReason(this.model);
  }
}

/** The framing a passthrough asks the upstream for: the client's, unless only clients get it (StreamFraming.clientOnly: Bedrock's event-stream). */
function upstreamFramingOf(exchange: CallSource): string | undefined {
  const name = exchange.target?.framing;
  return name !== undefined && framingOf(getFormat(exchange.format), name).clientOnly !== true ? name : undefined;
}

/**
 * A same-format request whose output cap is above the model's known maximum would only be
 * refused upstream (SDKs pick 128k for ids they do not know, such as the gateway's
 * `provider/model`): the format lowers it (`passthrough.capOutput`; a format without one is
 * never capped) and the body is re-serialized, the one passthrough edit besides the model id
 * and the format's own `prepare`. Undefined when nothing needs it.
 */
function capPassthrough(exchange: CallSource, inbound: InboundRequest | ChatRequest, model: CatalogModel, stream: boolean): PreparedCall | undefined {
  const max = model.spec.maxOutputTokens;
  const rules = getFormat(exchange.format).passthrough;
  const capped = max === undefined || exchange.compact ? undefined : rules.capOutput?.(exchange.body, max);
  if (!capped) return undefined;
  const body = typeof capped.body.model === 'string' ? withField(capped.body, 'model', model.upstreamId) : capped.body;
  const tweaked = rules.prepare?.({ body, raw: JSON.stringify(body), stream }, passthroughTarget(model));
  const call = callOf(exchange.format, model, stream, exchange, tweaked?.body ?? body, tweaked?.raw ?? JSON.stringify(body));
  const framing = upstreamFramingOf(exchange);
  if (framing !== undefined) call.framing = framing;
  const adapted = tweaked?.adapted ? [...capped.adapted, ...tweaked.adapted] : capped.adapted;
  const prepared: PreparedCall = { call, upstreamFormat: exchange.format, passthrough: true, stripUsageChunk: tweaked?.dropUsageRecords === true, adapted };
  if (tweaked?.convertAnswer) answerConverted(prepared, inbound);
  if (tweaked?.reportCost) prepared.reportCost = true;
  return prepared;
}

/**
 * What a request converted for `model` must pass (a 422 otherwise): nothing the IR could not
 * carry (a 400 when losing it would leave a message empty), no item_reference it cannot resolve, no images asked of an upstream that cannot make
 * them (a 400). Returns the reasoning references it drops.
 * Run before the credit hold when a conversion is certain (runExchange), and on every conversion.
 */
export function checkConvertible(request: ChatRequest, model: CatalogModel): string[] | undefined {
  const unconvertible = request.unconvertible?.[0];
  if (unconvertible?.missing) {
    throw new GatewayError('bad_request', `Invalid parameter '${unconvertible.field}': ${unconvertible.message}.`, { details: { fields: { [unconvertible.field]: unconvertible.message } } });
  }
  if (unconvertible) {
    throw validationError({ [unconvertible.field]: unconvertible.message }, `Invalid parameter '${unconvertible.field}': ${unconvertible.message}; model '${model.id}' is served in another format.`);
  }
  checkImageOutput(request, model);
  return checkReferences(request, model);
}

/**
 * Images asked for (Gemini's `responseModalities`, Chat's `modalities`) of a model whose upstream
 * format cannot make them, or makes them only for image models and the catalog says this is not
 * one: Google's own answer to a model that cannot (400 INVALID_ARGUMENT, "Model does not support
 * the requested response modalities: image"), in the client's format. A text-only answer would
 * look like a model that chose not to draw.
 */
function checkImageOutput(request: ChatRequest, model: CatalogModel): void {
  if (!request.outputModalities?.includes('image')) return;
  const can = getFormat(model.formats[0]).imageOutput;
  if (can === 'any-model' || (can === 'image-models' && modalitiesOf(model.spec).output.includes('image'))) return;
  throw new GatewayError('bad_request', `Model does not support the requested response modalities: image (model '${model.id}' is served by an upstream that answers in text only).`);
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
  stream: boolean,
  exchange: CallSource,
  body: Record<string, unknown>,
  rawBody: string,
): Omit<ChatCall, 'signal'> {
  return { format, model: model.upstreamId, stream, headers: headersFor(format, exchange.forwardHeaders), body, rawBody };
}

/** A client header goes only to an upstream of a format that reads it (`anthropic-beta` to Messages, `openai-beta` to Chat and Responses). */
function headersFor(format: WireFormat, headers: Record<string, string>): Record<string, string> {
  const own = getFormat(format).forwardHeaders ?? [];
  let out: Record<string, string> | undefined;
  for (const name in headers) {
    if (own.includes(name)) continue;
    out ??= Object.assign({}, headers);
    delete out[name];
  }
  return out ?? headers;
}


/** fitToModel, its refusals of stop sequences named as the client's format writes them (`stop_sequences[1]`, not the IR's `stop[1]`). */
function fitFor(request: ChatRequest, model: CatalogModel, target: WireFormat, client: WireFormat): ReturnType<typeof fitToModel> {
  try {
    return fitToModel(request, model, target);
  } catch (error) {
    const field = getFormat(client).stopField;
    if (field === undefined || !isGatewayError(error)) throw error;
    throw renameFields(error, (name) => (/^stop(?=$|\[)/.test(name) ? name.replace(/^stop/, field) : undefined));
  }
}
