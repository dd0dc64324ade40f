import type { ChatRequest, ChatResponse, RoutingEvent, StreamPart, Usage, WireFormat } from '../ir/index.ts';
import type { SseRecord } from '../sse/index.ts';
import type { GatewayError, RequestIds } from '../errors/index.ts';

/** The model and stream flag a route reads from the request's URL (formats with `from: 'path'` routes). */
export interface RouteTarget {
  model: string;
  stream: boolean;
  /**
   * The stream framing the client asked for, by name, when the format has several (`framings`;
   * Gemini: `alt=sse` or a JSON array); absent: the format's default `framing`.
   */
  framing?: string;
  /**
   * Other spellings of `model` to try, in order, when the gateway serves no model by it (a cloud's
   * id: Vertex `claude-sonnet-4-5@20250929`, Bedrock `us.anthropic.claude-sonnet-4-5-20250929-v1:0`):
   * the first id the gateway serves is the request's model; none, and the path's id is refused as unknown.
   */
  alsoKnownAs?: readonly string[];
}

/**
 * What a path route changes in a body before anything reads it, so the body is what the format's
 * own route takes (Claude on Vertex or Bedrock: the model and stream flag from the path, no
 * `anthropic_version`): top-level fields set or removed in the bytes as received, and client
 * headers that go on to the upstream as if the client had sent them.
 */
export interface BodyShape {
  set?: Record<string, unknown>;
  remove?: readonly string[];
  headers?: Record<string, string>;
}

/** Options an encoder of an upstream request gets from the pipeline. */
export interface EncodeRequestOptions {
  /** The model id as the upstream knows it (without the `provider/` prefix). */
  upstreamModel: string;
  /**
   * Which model it is, when `upstreamModel` is only a name for it (an Azure deployment
   * `my-gpt5-prod` of gpt-5): what depends on the model (OpenAI's reasoning models, its own
   * fields, Gemini 3's thinking levels) is decided by this id. Default: `upstreamModel`.
   */
  baseModel?: string;
  /** Default max tokens for formats that require one (Messages). */
  defaultMaxTokens?: number;
  /**
   * The request was converted from another format and the model's prompt-cache mode is `auto`:
   * a format with explicit cache markers places them (Messages: system/tools, last stable turn;
   * docs/formats.md, prompt caching). Formats without markers ignore it.
   */
  autoCache?: boolean;
  /** The request came from another wire format (a conversion, not a re-encoding of the format's own request). */
  converted?: boolean;
}

/** Decodes an upstream stream incrementally: SSE records in, IR stream parts out. */
export interface StreamDecoder {
  push(record: SseRecord): StreamPart[];
  /** The upstream closed; returns what is still pending (e.g. a finish with no usage). */
  end(): StreamPart[];
}

/** Encodes IR stream parts into SSE records for a client of this format (the relay frames them). */
export interface StreamEncoder {
  /** The records for this part (possibly none: parts may be held back). */
  encode(part: StreamPart): SseRecord[];
}

/** What an upstream error body or error record says, whatever its format (classifyUpstreamError reads it). */
export interface DecodedUpstreamError {
  message: string;
  type?: string;
  code?: string;
  /** Why a content policy refused (Azure's `innererror.content_filter_result`), passed on in `error.details`. */
  contentFilter?: Record<string, unknown>;
  /** The wait the body names, in whole seconds (Google's `RetryInfo.retryDelay`: its 429s send no Retry-After header). */
  retryAfter?: number;
  /** The same wait to the millisecond (`retryDelay: "31.5s"`), relayed as `retry-after-ms`. */
  retryAfterMs?: number;
  /** The request field the upstream refused (OpenAI `error.param`). */
  param?: string;
  /**
   * The upstream's own typed error details, as it sent them (Google's `error.details`:
   * `QuotaFailure`, `Help`, `BadRequest`, `ErrorInfo`, `RetryInfo`…): opaque, shown in
   * `error.details.upstream_details` and relayed to a client of the same format.
   */
  upstreamDetails?: Record<string, unknown>[];
}

/** Identity and usage read from a same-format (passthrough) response without converting it. */
export interface PassthroughInfo {
  id?: string;
  model?: string;
  usage?: Usage;
  /** The upstream's own finish reason (whole responses; for traces). */
  finishReason?: string;
}

/** Reads usage out of a passthrough stream, record by record. */
export interface UsageTap {
  /**
   * One record of the stream, in order. `marked` false: the record does not hold the format's
   * `PassthroughRules.marker` (the relay searched its chunk once), so the tap need not search it
   * for what only a marked record says; undefined: not known.
   */
  push(record: SseRecord, marked?: boolean): void;
  readonly info: PassthroughInfo;
}

/** Everything the pipeline needs from one wire format. One implementation per folder. */
export interface FormatCodec {
  readonly format: WireFormat;
  /**
   * The inbound body → IR; throws GatewayError (400/422) on an invalid body. `target` is what
   * the route read from the URL (formats whose routes carry the model and stream flag in the path).
   */
  decodeRequest(body: unknown, target?: RouteTarget): ChatRequest;
  /** IR → the body to send upstream in this format. */
  encodeRequest(request: ChatRequest, options: EncodeRequestOptions): Record<string, unknown>;
  /**
   * An upstream response body of this format → IR. An answer that says it failed throws; one
   * that reports what it used throws a FailedAnswerError carrying that usage (it is billed).
   */
  decodeResponse(body: unknown): ChatResponse;
  /** IR → a response body for a client of this format. */
  encodeResponse(response: ChatResponse, request: ChatRequest): Record<string, unknown>;
  createStreamDecoder(): StreamDecoder;
  /** An encoder for one client stream; `ids` go into its error record (the same body as `encodeStreamError`). */
  createStreamEncoder(request: ChatRequest, ids: RequestIds): StreamEncoder;
  /** Reads an upstream error body of this format. */
  decodeError(status: number, body: unknown): DecodedUpstreamError;
  /** Reads an upstream stream record of this format that reports an error; undefined for any other record. */
  decodeStreamError(record: SseRecord): DecodedUpstreamError | undefined;
  /** The error body for a client of this format: the spec envelope plus native fields. */
  encodeError(error: GatewayError, ids: RequestIds): Record<string, unknown>;
  /** The HTTP status of that error body when this format's API answers another than the spec's (Gemini: 400 for a 422); absent: the spec's. */
  errorStatus?(error: GatewayError): number;
  /**
   * The record that reports an error after a stream has started (a stream this codec's encoder
   * did not produce). `tap` is the passthrough's, made by this codec's `createUsageTap` and fed
   * every record the client got: a format that numbers its records goes on from it.
   */
  encodeStreamError(error: GatewayError, ids: RequestIds, tap?: UsageTap): SseRecord;
  /**
   * The records that end such a stream when the format ends a failed stream with more than its
   * error record (Responses: `error`, then `response.failed`); absent: `encodeStreamError` alone.
   */
  encodeStreamFailure?(error: GatewayError, ids: RequestIds, tap?: UsageTap): SseRecord[];
  /**
   * A failure before a streamed answer started that this format's API reports inside a 200
   * stream rather than with a status (Responses: a context overflow); undefined for any other,
   * which is answered with its status and `encodeError`'s body. `model` is the one asked for.
   */
  encodeStreamedRefusal?(error: GatewayError, ids: RequestIds, model: string | undefined): SseRecord[] | undefined;
  /**
   * The records a passthrough adds after an upstream stream that ended without its format's last
   * word (Responses: an `error` event with no `response.failed` after it), read from the tap that
   * saw every record; absent or undefined: nothing to add.
   */
  finishPassthrough?(tap: UsageTap): SseRecord[] | undefined;
  /**
   * The client stream's records with the gateway's routing events put where this format's SDKs
   * tolerate them; undefined while the place has not come yet (try again with the next records).
   */
  insertRoutingEvents(records: readonly SseRecord[], events: readonly RoutingEvent[]): SseRecord[] | undefined;
  /**
   * The id a client of this format sees for the IR response id its encoders were given (Chat's
   * `chatcmpl-…` for a converted `msg_…`): what the ledger keeps as the answer's id. Absent: the id as it is.
   */
  answerId?(id: string): string;
  /** Reads id/model/usage from a same-format JSON response. */
  readPassthroughResponse(body: unknown): PassthroughInfo;
  createUsageTap(): UsageTap;
}

/**
 * One record of a stream, whatever its framing: an SSE event, one element of a JSON-array
 * stream, one message of a binary event-stream. `event` is the record's name when the framing
 * carries one; `data` is its payload text (JSON for every format so far).
 */
export type WireRecord = SseRecord;

/** Bytes in → records out: cuts an upstream stream at record boundaries (any split of the bytes). */
export interface FrameReader {
  /** Feeds a chunk; returns the bytes of the whole records in it (possibly empty), their records in `records`. */
  push(chunk: Uint8Array): Buffer;
  /** The records of the bytes the last `push` returned. */
  readonly records: WireRecord[];
  /** The upstream ended: the records of a last record that was cut short (same answer on every call). */
  end(): WireRecord[];
  /**
   * Where each record of the last push ends in its bytes, so a passthrough can leave a record out
   * and pass the others' bytes as they came; absent or undefined: the relay frames the records again.
   */
  recordEnds?(): number[] | undefined;
}

/** Records → bytes, for one client stream. Stateful for framings with an opening and a closing (a JSON array). */
export interface FrameWriter {
  /** The bytes of these records. */
  write(records: readonly WireRecord[]): string | Buffer;
  /** `count` records went to the client as the upstream's own bytes (a passthrough): keeps the writer's place. */
  passed(count: number): void;
  /** What closes the stream after its last record ('' when nothing does, as in SSE). */
  end(): string | Buffer;
  /**
   * Bytes that follow the end in a network chunk of their own, given once (a client reads them
   * only so: @google/genai tells a Gemini stream's error from a chunk that is its bare element alone).
   */
  apart?(): string | undefined;
}

/** How a format's streams are framed on the wire: SSE today; a JSON array or a binary event-stream plug in here. */
export interface StreamFraming {
  /** The content-type of a stream in this framing. */
  contentType: string;
  /**
   * Only clients get it (Bedrock's event-stream on the Messages face): an upstream of the format is
   * asked for and read in the format's default framing, and a passthrough's records are framed again.
   */
  clientOnly?: boolean;
  createReader(): FrameReader;
  createWriter(): FrameWriter;
}

/**
 * Where a stream is, told from one record without JSON-parsing it (it runs on every record):
 * `finished` the answer is whole (records such as usage may still follow); `complete` it is
 * the last record the format sends (only the end of the body may follow).
 */
export type RecordEnd = 'finished' | 'complete';

/**
 * OpenRouter's usage accounting in a format's answers (`usage.cost`, `is_byok`): the answer, or
 * its stream's usage record, with what the gateway charged for the request. Only requests that
 * asked for it (a decoded ChatRequest's `reportCost`, PreparedPassthrough.reportCost) get it.
 */
export interface UsageCostFace {
  /** Text every stream record holding usage has (Chat's `"usage"`): a stream is held from the last piece that has it. */
  marker: string;
  /** A whole answer's body with `usd` as its cost; undefined when it holds no usage to add it to. */
  answer(json: string, usd: number): string | undefined;
  /** A stream record with `usd` as the cost of its usage; undefined when it holds no usage. The last such record of a stream gets it. */
  record(record: WireRecord, usd: number): WireRecord | undefined;
}

/** What a passthrough's `prepare` changed (PassthroughRules.prepare). */
export type PreparedPassthrough = PassthroughRequest & {
  dropUsageRecords?: boolean;
  adapted?: string[];
  /**
   * The client asked for OpenRouter's usage accounting (`usage: {include: true}`): its answer's
   * usage carries what the gateway charged (FormatDefinition.usageCost). Set only with `adapted`
   * (maybe empty), so a request without OpenRouter's fields is asked nothing more.
   */
  reportCost?: boolean;
  /**
   * The body goes up as prepared, but the answer is decoded and encoded again in the client's
   * format, as a converted one is: it must change in a way no record rewrite does (OpenRouter's
   * `reasoning.exclude` on an upstream that does not know it: the reasoning is left out). Rare.
   */
  convertAnswer?: boolean;
};

/** A same-format request body on its way upstream (model already rewritten). */
export interface PassthroughRequest {
  body: Record<string, unknown>;
  /** The exact text to send. */
  raw: string;
  stream: boolean;
}

/** What a passthrough's `prepare` knows of the upstream a same-format request goes to. */
export interface PassthroughTarget {
  /**
   * The upstream takes OpenRouter's own request fields (`provider`, `plugins`, `transforms`,
   * `route`, `usage`, its `reasoning` object): an OpenRouter provider (config `openRouterFields`).
   * Any other upstream refuses them as unknown parameters (OpenAI, Azure, Groq: 400).
   */
  openRouterFields: boolean;
  /** The model the upstream serves, by what it is (baseModelOf): OpenAI's reasoning efforts are read from it. */
  baseModel: string;
  /** The catalog, the plugin or the config says the model does not reason: reasoning asks are left out. */
  noReasoning: boolean;
}

/**
 * Tools only one vendor's API can run (Responses hosted tools, Anthropic server tools): the
 * format that runs them and their `type`s, in order.
 */
export interface VendorTools {
  /** The format whose upstream runs them all as written (the client's own). */
  format: WireFormat;
  /** Their `type`s, in order. */
  types: string[];
  /** Those of `types` that are the request's hosted web search (the IR carries it: every format whose face says `hostedWebSearch` runs it). */
  webSearch: string[];
  /** The most searches the client lets that web search run (Anthropic `max_uses`, Responses `max_tool_calls`): the credit hold's bound; absent, unbounded. */
  maxUses?: number;
  /** OpenAI's hosted `image_generation` tool, as declared: what the credit hold prices its images by. */
  imageGeneration?: ImageToolRequest;
}

/** What a request's `image_generation` tool says of the images it may make (the credit hold's bound). */
export interface ImageToolRequest {
  /** The tool's `model` (absent: OpenAI's default). */
  model?: string;
  /** `low`, `medium`, `high` or `auto` (absent: auto). */
  quality?: string;
  /** `1024x1024`, `1536x1024`, … or `auto` (absent: auto). */
  size?: string;
  /** `partial_images`: streamed previews, each billed as extra output tokens. */
  partialImages?: number;
  /** The most images the response may make: `max_tool_calls` when the client bounds its built-in tool calls, else 1. */
  calls: number;
}

/**
 * What billing and routing read of a request — and all a same-format passthrough reads: the
 * body is forwarded as the client wrote it, never decoded into the IR unless a conversion, a
 * fallback to another format or the Responses store needs it.
 */
export interface RequestFacts {
  model: string;
  stream: boolean;
  /** The output cap the client asked for (admission's bound on output), with `thinkingOnTop` in it. */
  maxTokens?: number;
  /**
   * The thinking budget held on top of the client's cap, when the request asks for thinking over
   * a smaller cap (setOutputCap): a Claude upstream is asked for both. Left out of the hold when
   * every model that may serve the request is served in a format whose cap bounds reasoning too
   * (FormatDefinition.capBoundsReasoning).
   */
  thinkingOnTop?: number;
  /** An upper bound of the input tokens any upstream can bill (the credit hold; docs/billing.md). */
  inputBound: number;
  /** Input tokens estimated from text length, for an upstream that never reports usage. */
  inputEstimate: number;
  /** A sticky-routing session key: OpenAI `prompt_cache_key`. */
  promptCacheKey?: string;
  /** A sticky-routing session key: Anthropic `metadata.user_id`. */
  userId?: string;
  vendorTools?: VendorTools;
  /**
   * Images asked of the answer (Chat's `modalities`, Gemini's `responseModalities`): on a
   * Responses upstream they are made by OpenAI's image tool, whose images the credit hold covers.
   */
  imageOutput?: boolean;
  /**
   * Models to try, in order, once every provider of `model` has failed (OpenRouter's request-level
   * `models`): read and taken out of the body by the exchange (`PassthroughRules.modelFallbacks`).
   */
  fallbacks?: readonly string[];
  /**
   * OpenRouter's `provider` routing preferences, as far as they name the gateway's own providers
   * (read by the exchange where the format has request fallbacks: Chat, Responses).
   */
  providerPreferences?: ProviderPreferences;
}

/** OpenRouter's `provider` object, the parts the gateway's routing applies to its own provider ids (lower-cased). */
export interface ProviderPreferences {
  /** Only these providers may serve. */
  only?: readonly string[];
  /** These providers may not serve. */
  ignore?: readonly string[];
  /** These providers first, in this order. */
  order?: readonly string[];
  /** false: none but those `order` names (OpenRouter's `allow_fallbacks`). */
  allowFallbacks?: boolean;
}

/** A same-format request as received (what `PassthroughRules.read` sees). */
export interface InboundBody {
  body: Record<string, unknown>;
  /** The exact text received. */
  raw: string;
  target?: RouteTarget;
}

/** What a passthrough may change, and nothing more: only what billing and routing need. */
export interface PassthroughRules {
  /**
   * Reads and checks only what billing and routing need (model, stream, output cap, input
   * bound, session keys, vendor tools): 400/422 for those alone, anything else is the
   * upstream's to judge. Absent: the request is decoded into the IR to learn them (every
   * request of the format is then as strict as its decoder).
   */
  read?(request: InboundBody): RequestFacts;
  /**
   * The body with its output cap lowered to the model's known maximum (the upstream would only
   * refuse it: SDKs pick 128k for ids they do not know), and what was changed; undefined when
   * nothing is over. Absent: a passthrough of this format is never capped.
   */
  capOutput?(body: Record<string, unknown>, max: number): { body: Record<string, unknown>; adapted: string[] } | undefined;
  /**
   * The body field holding a request's own fallback models (OpenRouter's `models` on Chat and
   * Responses): the exchange reads and removes it before anything else, and routes to them after
   * `model` (which may then be left out: the list's first). Absent: the format has none.
   */
  modelFallbacks?: string;
  /**
   * Tweaks a same-format request needs (Chat: a stream asks for usage; Messages: thinking blocks
   * Anthropic cannot verify taken out). Returns the changed request, with `dropUsageRecords` when
   * the client gets none of the records asked for on its behalf and `adapted` naming what changed
   * (`X-Gateway-Adapted`); undefined leaves the request as it is.
   */
  prepare?(request: PassthroughRequest, target?: PassthroughTarget): PreparedPassthrough | undefined;
  /**
   * One passed stream record rewritten: undefined keeps it (its bytes go through untouched),
   * null drops it. Runs on every record: it must not JSON-parse a record it leaves alone.
   */
  rewrite?(record: WireRecord, context: RewriteContext): WireRecord | null | undefined;
  /**
   * Text (one line's worth, no line break) that every record `rewrite` changes holds, as does
   * every record the usage tap reads more from than the stream's first (Chat: `"usage"`). A chunk
   * of many records (a burst) is then searched for it once, and a record without it is neither
   * rewritten nor searched by the tap. Absent: every record is asked.
   */
  marker?: string;
}

export interface RewriteContext {
  /** The gateway asked for usage records the client did not: drop them. */
  dropUsageRecords: boolean;
  /** The id the client sees for the response (a stored Responses answer): replaces the upstream's. */
  responseId?: string;
  /** The stored response the request followed (`previous_response_id`), which the upstream never saw: the answer names it. */
  previousResponseId?: string;
  /** The conversation the request named (`conversation`, kept by the gateway), which the upstream never saw: the answer names it. */
  conversationId?: string;
}

/**
 * How a format names and finds the tools only its own API runs (the pipeline's hosted-tools
 * reads it: which upstream may serve them, what a refusal says).
 */
export interface VendorToolsFace {
  /** What one is called in a refusal (default `hosted tool`), e.g. `Anthropic tool`. */
  kind?: string;
  /** The API that runs them, in a refusal (default the format's title), e.g. `the Responses API`. */
  api?: string;
  /**
   * The vendor tools of a request of this format decoded into the IR, from what its decoder kept
   * there (the passthrough reader says the same from the raw body, `RequestFacts.vendorTools`).
   * Absent: only the IR's web search, as `web_search`, run by this format and those whose face
   * says `hostedWebSearch`.
   */
  read?(request: ChatRequest): VendorTools | undefined;
}

/** How a request converted from another format is fitted to this one (src/pipeline/fit-to-model.ts). */
export interface ConvertedFit {
  /** The format says Anthropic's reasoning effort `max`; without it a converted `max` becomes `high` (OpenAI's `xhigh` is not every model's). */
  maxEffort?: boolean;
  /** The format has no JSON mode: a converted `json_object` becomes a system instruction. */
  noJsonMode?: boolean;
  /** The format has no stop sequences (OpenAI Responses): a converted `stop` is left out, and said. */
  noStop?: boolean;
  /** The gateway does not ask this format for token log probabilities (Messages has none; Gemini's some models refuse): left out, and said. */
  noLogprobs?: boolean;
  /**
   * The models of this format's API that refuse sampling parameters (OpenAI's reasoning models,
   * by the model's id: baseModelOf, not a deployment's name): a converted `temperature`, `top_p` and penalties are left out for them.
   */
  noSampling?: (model: string) => boolean;
  /**
   * An ask of a converted body that the upstream may refuse for the account rather than the request
   * (OpenAI's reasoning summaries need a verified organization: 400, param `reasoning.summary`):
   * the body without the refused parameter, and what to say in `X-Gateway-Adapted`; the pipeline
   * makes the call once more with it. Undefined: the refusal stands. `byModel`: the model refused
   * it, not the account (Gemini's token log probabilities), so it is remembered for that model only.
   */
  withoutRefused?: (body: Record<string, unknown>, param: string) => { body: Record<string, unknown>; adapted: string; byModel?: boolean } | undefined;
  /**
   * The tool names the format's API takes: a converted request's other names (Claude Code's MCP
   * tools run to Anthropic's 128 characters) go up shortened, and come back to the client as it
   * wrote them (src/pipeline/fit-tool-names.ts). Absent: names go as they are.
   */
  toolName?: ToolNameRule;
}

/** What a format's API takes as a tool name. */
export interface ToolNameRule {
  pattern: RegExp;
  /** The longest name it takes (≥ 10). */
  maxLength: number;
}

/** A credential the format's SDKs send: a header (with its scheme prefix, e.g. `Bearer `) or a query parameter. */
export interface CredentialSource {
  header?: string;
  /** Stripped from the header's value (case-insensitive), e.g. `Bearer `. */
  scheme?: string;
  query?: string;
  /**
   * The header holds an AWS Signature V4 `Authorization` (`AWS4-HMAC-SHA256 Credential=<key>/…`):
   * the key is its access key id. The signature is not checked (the gateway keeps only each key's
   * hash, so it has no secret to check it with): the key id travels in clear, as a Bearer key does.
   */
  sigv4?: boolean;
}

/**
 * One inbound route of a format. `from` says where the model and the stream flag are read:
 * the JSON body (`model`, `stream`), or the URL path (`readPath`, e.g. Gemini's
 * `/v1beta/models/{model}:streamGenerateContent`).
 */
export type FormatRoute =
  | { method: 'POST'; path: string; from: 'body' }
  | {
      method: 'POST';
      /** An h3 route pattern (`:name`, `**`, `**:name`). */
      path: string;
      from: 'path';
      /** The model and stream flag of a request URL; undefined when the URL is not one of this route's (404). */
      readPath(pathname: string, query: URLSearchParams): RouteTarget | undefined;
      /** The body as the format's own route takes it (BodyShape), from the target read (its model the one the gateway serves); absent: as received. */
      shapeBody?(body: Record<string, unknown>, target: RouteTarget, header: (name: string) => string | undefined): BodyShape | undefined;
      /**
       * A pattern that also covers paths the gateway does not serve (Gemini's `/v1beta/{provider}/{model}:…`
       * beside `/v1beta/files/…`): left out of the method check, so another method there stays a 404, not a 405.
       */
      broad?: true;
    };

/**
 * Token counting in a format's own shape (Anthropic `count_tokens`, OpenAI `input_tokens`,
 * Gemini `countTokens`): the gateway asks the serving upstream's counter when it has one for
 * this format, else counts locally with a tokenizer (never a fake zero).
 */
export interface CountTokensFace {
  /** The route (an h3 pattern). It may be the same pattern as an inference route of the format: `readPath` then tells them apart. */
  path: string;
  /**
   * A path-model route: the model in the URL, `''` for a count URL whose body names the model
   * (Vertex's Claude `count-tokens:rawPredict`), or undefined when the URL is not a count request.
   */
  readPath?(pathname: string, query: URLSearchParams): string | undefined;
  /** Other spellings of a counted model to try when the gateway serves none by it (RouteTarget.alsoKnownAs): Vertex's `claude-sonnet-4-5@20250929`. */
  alsoKnownAs?(model: string): string[];
  /** A body without a model is refused (422 naming `model`) rather than counted locally. */
  requiresModel?: boolean;
  /** The count body → an IR request for the local count (`model` is the URL's or the body's). */
  decode(body: Record<string, unknown>, model: string): ChatRequest;
  /** The body for an upstream counter of this format, its model replaced by the upstream's id. */
  upstreamBody(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown>;
  /**
   * The body for an upstream counter of this format when the client spoke another (a converted
   * count: Claude Code counting on a GPT or Gemini model); absent: such counts are local. `baseModel`
   * is which model it is when `upstreamModel` is only a name for it (EncodeRequestOptions.baseModel).
   */
  bodyFor?(request: ChatRequest, upstreamModel: string, baseModel?: string): Record<string, unknown>;
  /** The upstream counter's answer → tokens; undefined when it did not say. */
  readUpstream(answer: unknown): number | undefined;
  /**
   * The client's answer for a count: `upstream` is the upstream counter's whole answer when it
   * counted (a format whose answer says more than the total passes it on), `request` what was counted.
   */
  encode(tokens: number, counted: { upstream?: Record<string, unknown>; request: ChatRequest }): Record<string, unknown>;
  /** A cloud's count of this format's bodies on a route of its own, its body and answer wrapped (Bedrock's CountTokens). */
  wrapped?: WrappedCount;
}

/**
 * A token count whose body wraps the face's count body and whose answer is the cloud's own:
 * Bedrock's `POST /model/{modelId}/count-tokens` takes `{input: {invokeModel: {body}}}`, the
 * InvokeModel body in base64, and answers `{inputTokens}`. Counted as the face counts (upstream, else locally).
 */
export interface WrappedCount {
  /** The route (an h3 pattern). */
  path: string;
  /** The model in the URL; undefined when the URL is not a count request (404). */
  readPath(pathname: string): string | undefined;
  /** Other spellings of the URL's model to try when the gateway serves none by it (RouteTarget.alsoKnownAs). */
  alsoKnownAs?(model: string): string[];
  /** The wrapped body → the face's count body (without a model: the URL names it); throws a 400 for a body that is not one. */
  unwrap(body: Record<string, unknown>): Record<string, unknown>;
  /**
   * A body of another format the wrap may hold instead (Bedrock's `input.converse`, a Converse body,
   * the bedrock plugin's format): `read` finds it (undefined: not there), and when that format is
   * registered its codec decodes it and it is counted as the face's own body for that request (its
   * `bodyFor`). Without the format: a 400 saying `missing`. `at` is where the wrap holds it
   * (`input.converse`): the fields the codec's errors name are put under it.
   */
  otherFormat?: { format: string; read(body: Record<string, unknown>): Record<string, unknown> | undefined; missing: string; at: string };
  /** The count → the cloud's answer. */
  encode(tokens: number): Record<string, unknown>;
}

/** What an embeddings request of a format's own shape asks for. */
export interface EmbeddingsTarget {
  model: string;
  /** Several inputs, answered as a list (Gemini's `batchEmbedContents`); else one. */
  batch: boolean;
  /** The shape a face with several reads and writes (Vertex AI's `:predict` instances beside Gemini's requests), as the face names it. */
  shape?: string;
}

/**
 * Embeddings in a format's own shape, served like `POST /v1/embeddings` (the gateway's
 * embedding models, billed per input token): the face turns its body into OpenAI's and the
 * vectors into its answer. A path-model face shares the inference route's pattern.
 */
export interface EmbeddingsFace {
  /** The model and the kind of request a URL asks for, or undefined when it is not an embeddings URL. */
  readPath(pathname: string, query: URLSearchParams): EmbeddingsTarget | undefined;
  /** The client's body → OpenAI's embeddings body (`model`, `input`, `dimensions`). */
  decode(body: Record<string, unknown>, target: EmbeddingsTarget): Record<string, unknown>;
  /**
   * The vectors, in input order → the client's answer. `tokens`: the input tokens billed for each
   * input, in order (the upstream's total shared out by length when it counted them together).
   */
  encode(vectors: number[][], target: EmbeddingsTarget, tokens: readonly number[]): Record<string, unknown>;
}

/** What an image generation of a format's own shape asks for. */
export interface ImagesTarget {
  model: string;
}

/** One image made, for a format's answer. */
export interface MadeImage {
  /** Base64. */
  data: string;
  mimeType: string;
  /** The prompt the upstream drew from when it rewrote the client's. */
  revisedPrompt?: string;
}

/**
 * Image generation in a format's own shape (Imagen's `…:predict`), served like
 * `POST /v1/images/generations` (the gateway's image models, billed per image). A URL it reads is
 * this face's when its model makes images; else the embeddings face's when that reads it (Vertex's
 * `:predict`), else no route.
 */
export interface ImagesFace {
  /** The model a URL asks, or undefined when it is not an image-generation URL. */
  readPath(pathname: string, query: URLSearchParams): ImagesTarget | undefined;
  /** The client's body → OpenAI's images body (`model`, `prompt`, `n`, `size`, …); 422 naming the field for one it cannot take. */
  decode(body: Record<string, unknown>, target: ImagesTarget): Record<string, unknown>;
  /** The images made → the client's answer. */
  encode(images: readonly MadeImage[], target: ImagesTarget): Record<string, unknown>;
  /** An OpenAI images field as the client's body names it (`n` → `parameters.sampleCount`), for refusals; undefined keeps it. */
  fieldOf?(field: string): string | undefined;
  /** An OpenAI size as the client's body asks for it (`1792x1024` → Imagen's `16:9`), for refusals; undefined: the client cannot ask for it. */
  sizeOf?(size: string): string | undefined;
}

/** What a format's model list shows of a model (the catalog's facts, format-free). */
export interface ListedModel {
  /** The gateway id (`provider/model`). */
  id: string;
  provider: string;
  displayName: string;
  type: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** The catalog's capabilities (`thinking`, `vision`, …). */
  capabilities?: readonly string[];
}

/** A model list in a format's own shape (Gemini's `GET /v1beta/models`), beside the OpenAI one at `/v1/models`. */
export interface ModelListFace {
  /** The list route; one model is `${path}/{id}`. */
  path: string;
  /** One page of the list (the query's paging parameters are the format's). */
  list(models: readonly ListedModel[], query: URLSearchParams): Record<string, unknown>;
  /** One model. */
  one(model: ListedModel): Record<string, unknown>;
  /** The model id in a one-model path's rest (after `${path}/`), e.g. without Google's `models/` prefix. */
  readId?(rest: string): string;
  /**
   * The method a one-model path's rest names when it is one the format serves by POST (Google's
   * `{model}:generateContent`), so a GET there is a wrong method, not an unknown model; else undefined.
   */
  readPostMethod?(rest: string): string | undefined;
}

/** What a model-list URL read by its face asks: the whole list, a list the gateway has nothing in, or one model (its gateway id). */
export type ModelPathTarget = { list: 'all' | 'none' } | { id: string; rest: string };

/**
 * A model list whose URLs say more than the id (Vertex AI's
 * `/v1beta1/[projects/{p}/locations/{l}/]publishers/{publisher}/models[/{model}]`), each read by the face.
 */
export interface ModelPathFace {
  /** GET route patterns (h3); broad: a URL `readPath` does not take stays a 404. */
  paths: readonly string[];
  /** What a URL asks (`rest`: the model as the URL wrote it, for `readPostMethod`), or undefined when it is not this face's. */
  readPath(pathname: string): ModelPathTarget | undefined;
  /** One page of the list (the query's paging parameters are the format's). */
  list(models: readonly ListedModel[], query: URLSearchParams): Record<string, unknown>;
  /** One model. */
  one(model: ListedModel): Record<string, unknown>;
  /** As ModelListFace.readPostMethod: a POST method the model's URL names, so a GET there is a wrong method. */
  readPostMethod?(rest: string): string | undefined;
}

/** A stored file's contents, for a request that carries it inline. */
export interface InlineFile {
  mimeType: string;
  /** Base64. */
  data: string;
  /** The name it was uploaded under, when it has one. */
  filename?: string;
}

/**
 * Files uploaded to the gateway that a request of this format names (Gemini's `fileData` with the
 * `uri` its Files API answered): no upstream can read the gateway's ids, so the exchange reads
 * the calling account's files and the request carries them inline, in its own format (a
 * same-format request is then a rewrite, not a passthrough as written).
 */
export interface StoredFilesFace {
  /** The ids of the gateway's files the body names, once per part naming one (a file named twice goes inline twice); empty when none (cheap then, given the body's text: every request runs it). */
  find(body: Record<string, unknown>, raw?: string): string[];
  /** The body (a copy) with each part naming one of `files` carrying it inline. */
  inline(body: Record<string, unknown>, files: ReadonlyMap<string, InlineFile>): Record<string, unknown>;
  /**
   * The format's own answer for a file the account does not have (Google's 403 PERMISSION_DENIED), or undefined to
   * leave such an id as written (OpenAI's `file_id`: an upstream's own file, which that upstream judges).
   */
  missing(id: string): GatewayError | undefined;
}

/** A wire format's whole face: everything the gateway needs to accept it inbound and to speak it upstream. */
export interface FormatDefinition {
  /** The format id in config (`formats: [...]`), plugin declarations, key scopes and metric labels. */
  id: string;
  /** A human name for docs and messages. */
  title: string;
  /** Inbound routes (also the batch endpoint when `from: 'body'`, and the key scope's paths). */
  routes: readonly FormatRoute[];
  /** The credentials this format's SDKs send, besides `Authorization: Bearer` and `X-API-Key`. */
  credentials: readonly CredentialSource[];
  /** Client headers (lowercase) that go on to an upstream of this format, never to another (e.g. `anthropic-beta`). */
  forwardHeaders?: readonly string[];
  /** The response header (lowercase) this format's SDKs read the request id from, sent beside `X-Request-ID` on its routes (Anthropic's `request-id`). */
  requestIdHeader?: string;
  /** The default stream framing (upstream requests converted from another format use it). */
  framing: StreamFraming;
  /**
   * Other framings by name, when a request chooses its stream's framing (Gemini: `sse` with
   * `alt=sse`, else `json-array`): a route's `readPath` names one (RouteTarget.framing), the
   * client's stream is written in it, and a passthrough asks the upstream for the same one
   * (the plugin reads `ChatCall.framing`) and reads the answer in it.
   */
  framings?: Readonly<Record<string, StreamFraming>>;
  /** Request, response, stream and error bodies ↔ IR, usage taps. */
  codec: FormatCodec;
  /**
   * The end of a stream, record by record (a cut stream is told from one that finished).
   * `finishes` false: only 'complete' is asked for (a conversion, whose decoder tells where the
   * answer finished), so a format may skip looking for 'finished'.
   */
  terminal(record: WireRecord, finishes?: boolean): RecordEnd | undefined;
  passthrough: PassthroughRules;
  /**
   * The upstream runs a hosted web search: the codec writes `ChatRequest.webSearch` as the
   * format's own tool and reads the search back as IR `web_search` parts and text citations.
   * Without it a converted request's web search is a hosted tool the upstream cannot run.
   */
  hostedWebSearch?: boolean;
  /**
   * Who can answer a converted request that asks for images (`ChatRequest.outputModalities`):
   * 'any-model' the request asks and the upstream judges for its model (Gemini's
   * `responseModalities`, OpenAI's hosted image tool); 'image-models' only a model whose catalog
   * output modalities hold `image` (Chat's `modalities`, as OpenRouter serves image models).
   * Absent: this format's answers hold no images (Messages), and such a request is refused.
   */
  imageOutput?: 'any-model' | 'image-models';
  /** The tools only this format's API runs: how a request's are found and how a refusal names them. */
  vendorTools?: VendorToolsFace;
  /**
   * The output cap bounds reasoning too (OpenAI's `max_completion_tokens`, `max_output_tokens`:
   * visible and reasoning tokens alike), and a request converted to this format is sent its cap as
   * asked: the credit hold of a request served in it holds no thinking budget on top of the cap
   * (RequestFacts.thinkingOnTop). Absent: the budget is held (Messages raises `max_tokens` to
   * budget + cap; Google does not document whether `maxOutputTokens` bounds thoughts).
   */
  capBoundsReasoning?: boolean;
  /** How a request converted to this format is fitted (absent: `max` effort becomes `high`, JSON mode kept). */
  fit?: ConvertedFit;
  /**
   * Where this format's clients write stop sequences (`stop_sequences`, `generationConfig.stopSequences`),
   * for a refusal of them the gateway makes on the IR (emulated ones' bounds); absent: `stop`.
   */
  stopField?: string;
  /**
   * The request carries one prompt text, not a conversation (OpenAI's legacy Completions): a
   * conversation converted into it becomes one transcript, which decodes back as one user turn.
   */
  singlePrompt?: boolean;
  /** Token counting in this format's shape, when its SDKs have it. */
  countTokens?: CountTokensFace;
  /** OpenRouter's usage accounting (`usage.cost`) in this format's answers, when its clients ask for it. */
  usageCost?: UsageCostFace;
  /** Embeddings in this format's shape, when its SDKs ask for them on its own routes (Gemini's `…:embedContent`). */
  embeddings?: EmbeddingsFace;
  /** A model list in this format's shape, when its SDKs read their own. */
  models?: ModelListFace;
  /** Another model list its SDKs read, on paths that say more than the id (Vertex AI's publisher models). */
  modelPaths?: ModelPathFace;
  /** Image generation in this format's shape, when its SDKs ask for it on its own routes (Imagen's `…:predict`). */
  images?: ImagesFace;
  /** Files uploaded to the gateway that its requests name, read and carried inline (Gemini's `fileData`). */
  storedFiles?: StoredFilesFace;
  /**
   * How this format's SDKs are told apart off its own routes (a path no route serves, a route
   * the formats share such as `/v1/models`), so the error they get there reads natively: path
   * prefixes only they ask under (Gemini `/v1beta/`), a header they always send (Anthropic
   * `anthropic-version`). A path prefix is never the dashboard's either.
   */
  clients?: ClientSigns;
  /**
   * The clouds' APIs some of this format's routes are on (Bedrock Runtime: the Messages face's
   * InvokeModel and CountTokens), whose SDKs ask the gateway nothing else. A route of the format
   * under a cloud's paths (its wrapped count too) answers as the cloud's SDKs read errors and
   * request ids (cloudOfRoute), and so does a path of one that no route serves, so they raise
   * their own not-found error.
   */
  clouds?: readonly CloudFace[];
}

/**
 * A cloud's API a format is served on (FormatDefinition.clouds): its paths, how its SDKs read an
 * error there, and its routes that another format serves once a plugin brings it.
 */
export interface CloudFace {
  /** The API's path roots, each the API's at that path and below it (`/model`: `/model` and `/model/…`); never the dashboard's. */
  paths: readonly string[];
  /** The response header (lowercase) its SDKs read the request id from, sent beside the format's `requestIdHeader` (the AWS SDKs' `x-amzn-requestid`). */
  requestIdHeader?: string;
  /** Its SDKs are the AWS SDKs, which name an error by `x-amzn-errortype` and read its text from a top-level `message`: both go beside the format's error body. */
  awsErrors?: true;
  /** Its routes that a plugin's format serves (Bedrock's Converse, the bedrock plugin's): what such a path's 404 says while that format is not registered. */
  otherFormats?: readonly CloudRoutesElsewhere[];
}

/** Routes of a cloud's API that another format serves (CloudFace.otherFormats). */
export interface CloudRoutesElsewhere {
  /** The format that serves them, registered when a provider uses the plugin that brings it. */
  format: string;
  method: 'POST';
  /** The paths, as a RegExp over the request path. */
  pattern: RegExp;
  /** What to configure, added to the 404 of such a path while `format` is not registered. */
  missing: string;
}

/** What marks a request as coming from a format's SDKs (FormatDefinition.clients). */
export interface ClientSigns {
  /** Path prefixes only this format's SDKs use, each ending in `/` (`/v1beta/`), or a resource only they ask for (`/v1/cachedContents`, itself and below). */
  pathPrefixes?: readonly string[];
  /** A request header (lowercase) its SDKs send on every request, or several (any one of them tells). */
  header?: string | readonly string[];
}
