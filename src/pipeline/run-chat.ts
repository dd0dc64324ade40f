import { GatewayError, isGatewayError } from '../errors/index.ts';
import { framingOf, getCodec, getFormat, hasCompactionTrigger, nameStoredIds, usageOfFailedAnswer } from '../formats/index.ts';
import type { ChatRequest, ChatResponse, RoutingEvent, StreamPart } from '../ir/index.ts';
import { InboundRequest, readInbound } from './inbound.ts';
import { mapTransportError, readBody } from '../upstream/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { sha256, watchOf, type AbortWatch } from '../util/index.ts';
import { applyProviderPreferences, buildRoutingHeaders, describeRoutingEvents, servesChat, type FallbackInfo, type Router, type RoutingInfo } from '../routing/index.ts';
import { callUpstream, type UpstreamSuccess } from './call-upstream.ts';
import { cutAtStop } from './emulate-stop.ts';
import { canRunVendorTools, canServeVendorTools, vendorToolsError } from './hosted-tools.ts';
import { peekStream, type PeekedStream } from './peek-stream.ts';
import { prepareCall, refusedAsk, withoutAsk, type PreparedCall } from './prepare-call.ts';
import { restoreToolNames } from './fit-tool-names.ts';
import type { RelayOptions } from './relay-records.ts';
import { relayStream } from './relay-stream.ts';
import { tryCandidates, type Served } from './try-candidates.ts';
import type { ChatExchange, ChatOutcome, Settlement } from './types.ts';
import type { AttemptObserver } from '../observability/index.ts';

export interface ChatPipelineDeps {
  registry: ProviderRegistry;
  defaultMaxTokens: number;
  /** The gateway's router (its breakers and latency state). */
  router: Router;
}

/** Decodes and validates the inbound body; every format validates the same way. */
export function decodeInbound(exchange: Pick<ChatExchange, 'format' | 'body' | 'target'>): ChatRequest {
  return getCodec(exchange.format).decodeRequest(exchange.body, exchange.target);
}

/** An upstream that answered and passed the first checks: a stream with its first record, or a whole JSON body. */
type Answer =
  | { kind: 'stream'; prepared: PreparedCall; upstream: UpstreamSuccess; peeked: PeekedStream }
  | { kind: 'json'; prepared: PreparedCall; text: string; parsed: unknown };

/** Frees an answer nobody will read (a hedge race's loser). */
function discardAnswer(answer: Answer): void {
  if (answer.kind !== 'stream') return;
  answer.upstream.done();
  answer.upstream.response.abort?.();
  answer.peeked.source.destroy();
}

/**
 * One attempt at one model: the call, then the first checks of its answer. Not async: this runs
 * on every request, and two callbacks allocate less than a suspended frame with two awaits.
 */
function callModel(
  router: Router,
  deps: ChatPipelineDeps,
  exchange: ChatExchange,
  request: InboundRequest,
  model: CatalogModel,
  client: AbortWatch,
): Promise<Answer> {
  const attempts = exchange.attempts;
  attempts?.attemptStarted(model.provider.id, model.id, model.upstreamId);
  let answering: Promise<Answer>;
  try {
    let prepared = prepareCall(exchange, request, model, { defaultMaxTokens: deps.defaultMaxTokens });
    const refits = !prepared.passthrough && getFormat(prepared.upstreamFormat).fit?.withoutRefused !== undefined;
    // Asks this provider refused for its account within the hour: left out at once, not refused again first.
    if (refits) {
      for (const param of router.refusedAsks.of(model.provider.id)) prepared = withoutAsk(prepared, param) ?? prepared;
      // A model's own refusals (Gemini's token log probabilities) are kept under its `provider/model` id.
      for (const param of router.refusedAsks.of(model.id)) prepared = withoutAsk(prepared, param) ?? prepared;
    }
    const startedAt = router.now();
    let calling = callUpstream(model, prepared.call, client, prepared.compact);
    // OpenAI's compaction passed to a Responses server that has none (vLLM, Ollama…): the model summarizes there, over its /responses.
    if (prepared.passthrough && exchange.format === 'responses') {
      const compact = prepared.compact === true;
      calling = calling.catch((error: unknown) => {
        if (!lacksCompaction(error, compact, exchange.body)) throw error;
        prepared = prepareCall(exchange, request, model, { defaultMaxTokens: deps.defaultMaxTokens, forceConversion: true });
        return callUpstream(model, prepared.call, client);
      });
    }
    // An ask the account may not have (OpenAI's reasoning summaries): made once more without it.
    if (refits) {
      calling = calling.catch((error: unknown) => {
        const param = refusedAsk(prepared, error);
        const again = param === undefined ? undefined : withoutAsk(prepared, param);
        if (!again) throw error;
        router.refusedAsks.remember(again.refusedByModel ? model.id : model.provider.id, param!);
        prepared = again;
        return callUpstream(model, prepared.call, client);
      });
    }
    attempts?.attemptDispatched();
    answering = calling.then((upstream) => {
      router.latency.record(model.id, router.now() - startedAt);
      return request.facts.stream ? streamAnswer(prepared, upstream, model) : jsonAnswer(prepared, upstream, model);
    });
  } catch (error) {
    answering = Promise.reject(error);
  }
  if (!attempts) return answering;
  return answering.then(
    (answer) => {
      attempts.attemptSucceeded(model.provider.id, model.id);
      return answer;
    },
    (error: unknown) => {
      attempts.attemptFailed(model.provider.id, model.id, isGatewayError(error) ? error.code : 'internal_error');
      throw error;
    },
  );
}

/**
 * True when a passed-through compaction failed because the upstream server has no such thing: a
 * `POST /responses/compact` answered 404, 405 (a `/responses/{id}` route took the path) or 501,
 * unless the upstream said the model is unknown (OpenAI's 404 `model_not_found`), which a summary
 * cannot mend; a `compaction_trigger` turn (Codex's remote compaction v2) refused as invalid (400, 422).
 */
function lacksCompaction(error: unknown, compact: boolean, body: Record<string, unknown>): boolean {
  if (!isGatewayError(error)) return false;
  const status = error.details?.upstream_status;
  if (compact) return (status === 404 || status === 405 || status === 501) && error.details?.upstream_code !== 'model_not_found';
  return (status === 400 || status === 422) && hasCompactionTrigger(body);
}

/** A streamed answer with its first record (peeked: an upstream error there can still fall back). */
async function streamAnswer(prepared: PreparedCall, upstream: UpstreamSuccess, model: CatalogModel): Promise<Answer> {
  try {
    const peeked = await peekStream(upstream.response.body, prepared.upstreamFormat, model.provider.id, prepared.call.framing);
    return { kind: 'stream', prepared, upstream, peeked };
  } catch (error) {
    upstream.done();
    upstream.response.abort?.();
    throw mapTransportError(error, upstream.watch);
  }
}

/**
 * The most bytes of one whole (non-streamed) answer the gateway reads (docs/limits.md, "Upstream
 * answers"): past it the upstream is stopped and the client gets a 502. Answers are far smaller
 * (images inline included); a body that never ends, or a wrong base URL serving a file, is not
 * held in memory and parsed.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** A whole answer, read and parsed. Not async: the body's own promise, one hop less per request. */
function jsonAnswer(prepared: PreparedCall, upstream: UpstreamSuccess, model: CatalogModel): Promise<Answer> {
  let reading: Promise<Buffer>;
  try {
    reading = readBody(upstream.response.body, MAX_ANSWER_BYTES);
  } catch (error) {
    reading = Promise.reject(error);
  }
  return reading.then(
    (bytes) => {
      upstream.done();
      const text = bytes.toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new GatewayError('provider_error', `The provider '${model.provider.id}' returned a body that is not JSON.`, { details: { provider: model.provider.id } });
      }
      return { kind: 'json', prepared, text, parsed };
    },
    (error: unknown) => {
      upstream.done();
      throw mapTransportError(error, upstream.watch);
    },
  );
}

/**
 * Plans the route. A request with vendor tools (Responses hosted tools, Anthropic server tools)
 * goes only to upstreams that can run them when a candidate can; else to those whose
 * `hostedTools` policy drops them; when no candidate may, 422 names the tools and the model.
 */
function planFor(router: Router, request: InboundRequest): ReturnType<Router['plan']> {
  const plan = planForTools(router, request);
  const preferences = request.facts.providerPreferences;
  return preferences ? applyProviderPreferences(plan, preferences, router.registry.providers.keys()) : plan;
}

function planForTools(router: Router, request: InboundRequest): ReturnType<Router['plan']> {
  const { vendorTools: tools, model, fallbacks } = request.facts;
  const any = router.planChat(model, servesChat, fallbacks);
  if (!tools) return any;
  const candidates = [...any.primary, ...any.chain];
  if (candidates.some((candidate) => canRunVendorTools(candidate, tools))) return router.plan(model, (candidate) => servesChat(candidate) && canRunVendorTools(candidate, tools), fallbacks);
  if (!candidates.some((candidate) => canServeVendorTools(candidate, tools))) throw vendorToolsError(tools, model);
  return router.plan(model, (candidate) => servesChat(candidate) && canServeVendorTools(candidate, tools), fallbacks);
}

/**
 * Runs one chat-like exchange: plan the route, call candidates until one answers (retries,
 * fallbacks, circuit breakers: src/routing), then relay. Nothing reaches the client before
 * an upstream answered with a sane first record, so every failure up to there can fall back.
 */
export function runChat(deps: ChatPipelineDeps, exchange: ChatExchange, inbound?: InboundRequest | ChatRequest): Promise<ChatOutcome> {
  // Not async: the candidates' promise is the only wait, and a callback allocates less than a suspended frame.
  try {
    const request = inbound instanceof InboundRequest ? inbound : readInbound(exchange, inbound);
    const router = deps.router;
    const startedAt = router.now();
    const session = sessionKeyOf(router, exchange, request);
    const planned = planFor(router, request);
    const plan = session === undefined ? planned : router.sticky.order(planned, session, startedAt, (id) => router.breaker.state(id) === 'closed');
    const client = exchange.client ?? watchOf(exchange.signal);
    return tryCandidates(
      router,
      plan,
      client,
      (model, hedgeSignal) => callModel(router, deps, exchange, request, model, hedgeSignal ? watchOf(AbortSignal.any([client.signal, hedgeSignal])) : client),
      { startedAt, discard: discardAnswer, noHedge: session !== undefined && !router.config.sticky.hedge },
    ).then((served) => outcomeOf(router, exchange, request, session, served));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The outcome of the candidate that answered: its JSON body, or its relayed stream. */
function outcomeOf(router: Router, exchange: ChatExchange, request: InboundRequest, session: string | undefined, served: Served<Answer>): ChatOutcome {
  const { value: answer, model, routing, fallback } = served;
  if (session !== undefined) router.sticky.served(session, model.id, router.now());
  const headers = buildRoutingHeaders(routing, fallback);
  const outcome =
    answer.kind === 'json'
      ? jsonOutcome(exchange, request, model, answer, headers, routing, fallback)
      : streamOutcome(router, exchange, request, model, answer, headers, routing, fallback, router.eventsWanted(exchange.gatewayEvents) ? describeRoutingEvents(routing, fallback) : undefined);
  return noteAdaptations(outcome, answer.prepared, exchange);
}

/**
 * Names what was fitted or dropped for the serving model, in headers and on the outcome (for the
 * request log), and OpenRouter's usage accounting when the client asked (PreparedCall.reportCost,
 * which comes with `adapted`): the exchange says the charge in the client's format.
 */
function noteAdaptations(outcome: ChatOutcome, prepared: PreparedCall, exchange: ChatExchange): ChatOutcome {
  if (prepared.adapted) {
    if (prepared.adapted.length > 0) {
      outcome.adapted = prepared.adapted;
      outcome.headers['x-gateway-adapted'] = prepared.adapted.join(', ');
    }
    if (prepared.reportCost) outcome.reportCost = exchange.target?.framing === undefined ? { format: exchange.format } : { format: exchange.format, framing: exchange.target.framing };
  }
  if (prepared.droppedTools) {
    outcome.droppedTools = prepared.droppedTools;
    outcome.headers['x-gateway-dropped-tools'] = prepared.droppedTools.join(', ');
  }
  return outcome;
}

/**
 * The request's sticky-routing session key, from the sources `routing.sticky.keys` names, first
 * found wins (`metadata.user_id` is Anthropic's, read from Messages requests); undefined when
 * sticky routing is off or none is there. Prefixed by source so two sources never collide.
 */
function sessionKeyOf(router: Router, exchange: ChatExchange, request: InboundRequest): string | undefined {
  const sticky = router.config.sticky;
  if (!sticky.enabled) return undefined;
  const facts = request.facts;
  for (const source of sticky.keys) {
    const value = source === 'x-session-id' ? exchange.sessionId : source === 'prompt_cache_key' ? facts.promptCacheKey : facts.userId;
    if (!value) continue;
    const key = `${source}:${facts.model}:${value}`;
    // Kept for up to maxSessions sessions: a long value (a body field may be megabytes) is kept as its digest.
    return key.length > MAX_SESSION_KEY ? `${source}:sha256:${sha256(key)}` : key;
  }
  return undefined;
}

/** Session keys longer than this are remembered by their digest (a sticky session keeps its key for `ttlMs`). */
const MAX_SESSION_KEY = 256;

/** `headers` with one more (a fresh object from buildRoutingHeaders, so set in place). */
function withHeader(headers: Record<string, string>, name: string, value: string): Record<string, string> {
  headers[name] = value;
  return headers;
}

/** Hands a whole answer to the capture; one it cannot read as IR is still served. */
function captureResponse(capture: NonNullable<ChatExchange['capture']>, read: () => ChatResponse): void {
  let response: ChatResponse;
  try {
    response = read();
  } catch (error) {
    capture.unreadable(error);
    return;
  }
  capture.response(response);
}

function jsonOutcome(
  exchange: ChatExchange,
  request: InboundRequest,
  model: CatalogModel,
  answer: Extract<Answer, { kind: 'json' }>,
  routingHeaders: Record<string, string>,
  routing: RoutingInfo,
  fallback: FallbackInfo | undefined,
): ChatOutcome {
  const upstreamCodec = getCodec(answer.prepared.upstreamFormat);
  let json: string;
  let settlement: Settlement;
  const capture = exchange.capture;
  const responseId = exchange.responseId;
  if (answer.prepared.passthrough) {
    const parsed = answer.parsed as Record<string, unknown>;
    if (capture) captureResponse(capture, () => upstreamCodec.decodeResponse(parsed));
    const info = upstreamCodec.readPassthroughResponse(parsed);
    // The gateway's own ids go to the client instead of the upstream's (a stored Responses answer,
    // the one it followed); an answer the store has nothing to do with is sent as it came.
    const { previousResponseId, conversationId } = exchange;
    const named =
      (responseId !== undefined || previousResponseId !== undefined || conversationId !== undefined) &&
      typeof parsed?.id === 'string' &&
      nameStoredIds(parsed, { dropUsageRecords: false, responseId, previousResponseId, conversationId });
    if (named) {
      json = JSON.stringify(parsed);
      if (responseId !== undefined) info.id = responseId;
    } else json = answer.text;
    settlement = {
      model,
      usage: info.usage ?? { inputTokens: request.facts.inputEstimate, outputTokens: 0 },
      estimated: !info.usage,
      aborted: false,
      responseId: info.id,
    };
    if (info.finishReason !== undefined) settlement.finishReason = info.finishReason;
    if (info.model !== undefined) settlement.responseModel = info.model;
  } else {
    let response: ChatResponse;
    try {
      response = upstreamCodec.decodeResponse(answer.parsed);
    } catch (error) {
      settleFailedAnswer(exchange, model, error, routing, fallback);
      throw error;
    }
    if (answer.prepared.toolNames) response = restoreToolNames(response, answer.prepared.toolNames);
    if (answer.prepared.stop) response = cutAtStop(response, answer.prepared.stop);
    if (responseId !== undefined) response = { ...response, id: responseId };
    // Some formats' answers do not name the model (Bedrock Converse): the client sees the one it asked for.
    if (!response.model) response = { ...response, model: request.facts.model };
    if (capture) captureResponse(capture, () => response);
    json = JSON.stringify(getCodec(exchange.format).encodeResponse(response, request.ir));
    // The answer's id as the client's encoder wrote it (Chat's `chatcmpl-…` for a converted `msg_…`); the gateway's own as it is.
    const answerId = responseId ?? (response.id ? (getCodec(exchange.format).answerId?.(response.id) ?? response.id) : undefined);
    settlement = { model, usage: response.usage, estimated: false, aborted: false, responseId: answerId, finishReason: response.finishReason, responseModel: response.model };
  }
  settlement.routing = routing;
  if (fallback) settlement.fallback = fallback;
  exchange.onSettled?.(settlement);
  return {
    status: 200,
    headers: withHeader(routingHeaders, 'content-type', 'application/json'),
    json,
    settled: Promise.resolve(settlement),
    request,
    model,
    routing,
    fallback,
  };
}

/**
 * A whole answer that failed but reports what it used (a Responses `status: "failed"`): settled
 * with that usage and the error before the error is thrown, as its stream's `response.failed` and
 * its passthrough are.
 */
function settleFailedAnswer(exchange: ChatExchange, model: CatalogModel, error: unknown, routing: RoutingInfo, fallback: FallbackInfo | undefined): void {
  const settlement = failedAnswerSettlement(model, error);
  if (!settlement) return;
  settlement.routing = routing;
  if (fallback) settlement.fallback = fallback;
  exchange.onSettled?.(settlement);
}

/**
 * The settlement of a whole answer that failed but reports what it used (a FailedAnswerError):
 * that usage, with the error's code; undefined for any other error (nothing to charge). The live
 * path and native batch lines charge a failed answer by it.
 */
export function failedAnswerSettlement(model: CatalogModel, error: unknown): Settlement | undefined {
  const usage = usageOfFailedAnswer(error);
  return usage ? { model, usage, estimated: false, aborted: false, error: isGatewayError(error) ? error.code : 'provider_error' } : undefined;
}

function capturePart(capture: NonNullable<ChatExchange['capture']>): (part: StreamPart) => boolean | void {
  return (part) => capture.part(part);
}

function streamOutcome(
  router: Router,
  exchange: ChatExchange,
  request: InboundRequest,
  model: CatalogModel,
  answer: Extract<Answer, { kind: 'stream' }>,
  routingHeaders: Record<string, string>,
  routing: RoutingInfo,
  fallback: FallbackInfo | undefined,
  events: RoutingEvent[] | undefined,
): ChatOutcome {
  let resolve!: (s: Settlement) => void;
  const settled = new Promise<Settlement>((r) => (resolve = r));
  const options: RelayOptions = {
    upstream: answer.upstream,
    providerId: model.provider.id,
    upstreamFormat: answer.prepared.upstreamFormat,
    clientFormat: exchange.format,
    clientFraming: exchange.target?.framing,
    // A passthrough never decodes the request; a conversion already did (prepareCall).
    request: answer.prepared.passthrough ? undefined : request.ir,
    inputEstimate: request.facts.inputEstimate,
    ids: exchange.ids,
    client: exchange.client ?? watchOf(exchange.signal),
    passthrough: answer.prepared.passthrough,
    stripUsageChunk: answer.prepared.stripUsageChunk,
    toolNames: answer.prepared.toolNames,
    stop: answer.prepared.stop,
    events,
    onPart: exchange.capture ? capturePart(exchange.capture) : undefined,
    onTapFailed: exchange.capture ? (error) => exchange.capture?.unreadable(error) : undefined,
    responseId: exchange.responseId,
    previousResponseId: exchange.previousResponseId,
    conversationId: exchange.conversationId,
    onEnd(end) {
      // A stream that broke after the first byte counts against the circuit like a failed call.
      if (end.failure?.retryable) router.breaker.recordFailure(model.id, end.failure);
      const settlement: Settlement = { model, usage: end.usage, estimated: end.estimated, aborted: end.aborted, responseId: end.responseId, routing };
      if (fallback) settlement.fallback = fallback;
      if (end.finishReason !== undefined) settlement.finishReason = end.finishReason;
      const error = end.failure?.code ?? end.upstreamError;
      if (error !== undefined) settlement.error = error;
      exchange.onSettled?.(settlement);
      resolve(settlement);
    },
  };
  const stream = relayStream(options, answer.peeked);
  return {
    status: 200,
    headers: Object.assign(
      { 'content-type': framingOf(getFormat(exchange.format), exchange.target?.framing).contentType, 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' },
      routingHeaders,
    ),
    stream,
    settled,
    request,
    model,
    routing,
    fallback,
  };
}
