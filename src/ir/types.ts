/**
 * The internal representation (IR) where the three wire formats meet.
 * Decoders turn a wire body into these types; encoders turn them back into a wire body.
 * This file imports nothing and holds types only.
 */

/**
 * The id of a registered wire format (src/formats/registry.ts): the built-in `chat`,
 * `messages`, `responses`, and any a plugin contributes. Open, because plugins register
 * formats at load; config and plugin declarations are checked against the registry.
 */
export type WireFormat = string;

/**
 * Opaque provider data on a part, by namespace (the provider or format it came from: `google`,
 * `bedrock`, …), the way vercel/ai carries `providerMetadata` on every part. Only its own
 * namespace reads it; it round-trips byte-exact, through a client of another format too (that
 * client carries it in its own opaque field: src/formats/shared/carry-opaque.ts, docs/formats.md).
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** The slot every content part has for opaque provider data. */
export interface WithProviderMetadata {
  providerMetadata?: ProviderMetadata;
}

/** Where an image or document comes from. */
export type MediaSource =
  | { kind: 'url'; url: string }
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'file_id'; fileId: string }
  | { kind: 'text'; mediaType: string; data: string };

export interface TextPart extends WithProviderMetadata {
  type: 'text';
  text: string;
  /** Sources a hosted web search found for this text (see WebSearchPart). */
  citations?: UrlCitation[];
  /** Anthropic prompt-caching marker, carried so Messages→Messages conversions keep it. */
  cacheControl?: Record<string, unknown>;
  /** OpenAI's `prompt_cache_breakpoint` as the client sent it (Chat, Responses); also sets `cacheControl`. */
  cacheBreakpoint?: Record<string, unknown>;
  /** The Responses message item the text came in (an upstream's `msg_…`), so a stored copy names the item as the client saw it. */
  itemId?: string;
  /** The log probability of each token of the text, when the request asked for them (OpenAI's `logprobs`). */
  logprobs?: TokenLogprob[];
}

/** One output token's log probability, as OpenAI's Chat (`logprobs.content[]`) and Responses (`output_text.logprobs[]`) give it. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  /** The most likely tokens at this place (`top_logprobs`), when asked for. */
  topLogprobs?: Array<{ token: string; logprob: number; bytes?: number[] | null }>;
}

export interface ImagePart extends WithProviderMetadata {
  type: 'image';
  source: MediaSource;
  /** OpenAI `detail` (auto|low|high); dropped where the target has no equivalent. */
  detail?: string;
  cacheControl?: Record<string, unknown>;
  cacheBreakpoint?: Record<string, unknown>;
}

/** A document (PDF, text file): Anthropic `document`, Chat `file`, Responses `input_file`. */
export interface FilePart extends WithProviderMetadata {
  type: 'file';
  source: MediaSource;
  filename?: string;
  title?: string;
  context?: string;
  cacheControl?: Record<string, unknown>;
  cacheBreakpoint?: Record<string, unknown>;
}

export interface AudioPart extends WithProviderMetadata {
  type: 'audio';
  data: string;
  format: string;
}

/** An assistant's call of a client tool. `arguments` is JSON text, as on the OpenAI wire. */
export interface ToolCallPart extends WithProviderMetadata {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: string;
  /** Responses item id (`fc_…`) when known, so Responses passthrough-like round trips keep it. */
  itemId?: string;
  /** Anthropic prompt-caching marker on the tool_use block. */
  cacheControl?: Record<string, unknown>;
}

export interface ToolResultPart extends WithProviderMetadata {
  type: 'tool_result';
  toolCallId: string;
  content: string | Array<TextPart | ImagePart | FilePart>;
  isError?: boolean;
  cacheControl?: Record<string, unknown>;
}

/**
 * Reasoning / thinking. `signature` (Anthropic) and `encrypted` (OpenAI encrypted_content)
 * are opaque and must round-trip byte-exact. `redacted` marks Anthropic redacted_thinking,
 * whose opaque payload is in `data`.
 */
export interface ReasoningPart extends WithProviderMetadata {
  type: 'reasoning';
  text: string;
  signature?: string;
  redacted?: boolean;
  data?: string;
  /** Responses reasoning item id (`rs_…`) and its opaque encrypted content. */
  itemId?: string;
  encrypted?: string;
  /** Whose model wrote it, where nothing else on the part says so (a Gemini thought without a signature). */
  origin?: ReasoningOrigin;
}

/**
 * The vendor a reasoning part came from where nothing else on it says so (Chat's `reasoning_details`
 * name it in `format`): a Gemini thought without a signature, an Anthropic thinking block streamed
 * before its signature.
 */
export type ReasoningOrigin = 'google' | 'anthropic';

export interface RefusalPart extends WithProviderMetadata {
  type: 'refusal';
  refusal: string;
}

/**
 * Hosted web search, one shape for every vendor's: the tool on the request
 * (`ChatRequest.webSearch`), the search the upstream ran as one assistant part (`WebSearchPart`:
 * the call and its results together) and the sources cited by the text after it
 * (`TextPart.citations`). Wire mappings:
 * - Responses: tool `web_search` / `web_search_preview`; item `web_search_call`
 *   (`action: {type: "search", query, sources}`); `output_text.annotations[]` of type `url_citation`.
 * - Messages (Anthropic): server tool `web_search_20250305`; blocks `server_tool_use`
 *   (`name: "web_search"`, `input.query`) + `web_search_tool_result` (results carry an opaque
 *   `encrypted_content`); text `citations[]` of type `web_search_result_location` (opaque
 *   `encrypted_index`).
 * - Chat: `web_search_options`; `message.annotations[]` of type `url_citation`; no call item.
 * - Gemini: tool `googleSearch`; `groundingMetadata`: each `webSearchQueries[i]` is a part
 *   (sources, from `groundingChunks[].web`, on the first), `groundingSupports[].segment`
 *   (startIndex/endIndex into the candidate's text) with `groundingChunkIndices` are citations.
 * Opaque data of a vendor (Anthropic `encrypted_content`, `encrypted_index`) rides
 * `providerMetadata` under the vendor's namespace (`anthropic`) and is written back only to
 * that vendor's upstream; a target that cannot replay a past search gets its text only.
 */
export interface WebSearchTool {
  /** Most searches the upstream may run for one request (Anthropic `max_uses`). */
  maxUses?: number;
  /** Only pages of these domains (Responses `filters.allowed_domains`, Anthropic `allowed_domains`). */
  allowedDomains?: string[];
  /** Never pages of these domains (Anthropic `blocked_domains`). */
  blockedDomains?: string[];
  /** The user's approximate location (both OpenAI APIs and Anthropic: `type: "approximate"`). */
  userLocation?: { city?: string; region?: string; country?: string; timezone?: string };
  /** OpenAI `search_context_size` (low | medium | high). */
  contextSize?: string;
}

/** One page a hosted web search returned. */
export interface WebSearchSource {
  url: string;
  title?: string;
  /** Anthropic `page_age` (e.g. "April 30, 2025"). */
  pageAge?: string;
  /** Opaque vendor data (Anthropic: `{anthropic: {encryptedContent}}`), byte-exact. */
  providerMetadata?: ProviderMetadata;
}

/** A hosted web search the upstream ran (an assistant part): its query and what it found. */
export interface WebSearchPart extends WithProviderMetadata {
  type: 'web_search';
  /** The vendor's call id (`srvtoolu_…`, `ws_…`). */
  id: string;
  query?: string;
  /** Pages found, in the vendor's order; absent when the vendor does not list them. */
  sources?: WebSearchSource[];
  /** The search failed: the vendor's error code (Anthropic `max_uses_exceeded`, …). */
  error?: string;
  providerMetadata?: ProviderMetadata;
}

/** A source cited by a text part. */
export interface UrlCitation {
  type: 'url';
  url: string;
  title?: string;
  /** The cited span of the part's text, [startIndex, endIndex) in UTF-16 units; absent: the whole part. */
  startIndex?: number;
  endIndex?: number;
  /** The source's text being cited (Anthropic `cited_text`). */
  citedText?: string;
  /** Opaque vendor data (Anthropic: `{anthropic: {encryptedIndex}}`), byte-exact. */
  providerMetadata?: ProviderMetadata;
}

export type ContentPart =
  | TextPart
  | WebSearchPart
  | ImagePart
  | FilePart
  | AudioPart
  | ToolCallPart
  | ToolResultPart
  | ReasoningPart
  | RefusalPart;

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface Message {
  role: Role;
  content: ContentPart[];
  name?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: Record<string, unknown>;
  /** Responses `namespace` the tool was declared in; `name` is then `<namespace>__<member>`. */
  namespace?: string;
  /**
   * A Responses `custom` (freeform) tool: the model writes plain text, which other formats carry
   * as the one string argument `input` (`parameters` says so); `format` is the tool's own (text
   * or a grammar), for a Responses upstream.
   */
  custom?: { format?: Record<string, unknown> };
  /** OpenAI's `local_shell` tool (the client runs the command), carried elsewhere as a function of the action's fields. */
  localShell?: true;
  /** OpenAI's `shell` or `apply_patch` tool (the client runs it), carried elsewhere as a function of its action's fields. */
  shellTool?: 'shell' | 'apply_patch';
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningConfig {
  enabled: boolean;
  effort?: ReasoningEffort;
  budgetTokens?: number;
  /**
   * Responses `reasoning.summary` (auto|concise|detailed): the reasoning's text is wanted back (a
   * Messages client's thinking shown, Gemini's `includeThoughts`), which OpenAI gives only as a summary.
   */
  summary?: string;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name?: string;
      schema?: Record<string, unknown>;
      strict?: boolean;
      description?: string;
      /**
       * The schema wraps a bare answer in this property (a Gemini client's `text/x.enum`: an object
       * with one enum property, since OpenAI and Anthropic want an object at the root); the client
       * gets the property's value as plain text.
       */
      unwrap?: string;
    };

/** A chat-like request, independent of the wire format it arrived in. */
export interface ChatRequest {
  model: string;
  /** System / developer / instructions text, in order. */
  system: TextPart[];
  messages: Message[];
  stream: boolean;
  /** Chat `stream_options.include_usage`; Messages and Responses always carry usage. */
  includeUsage?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  n?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** The answer's token log probabilities are wanted (Chat `logprobs`, Responses `include: ["message.output_text.logprobs"]`). */
  logprobs?: boolean;
  /** How many most likely tokens to give at each place (0–20: Chat and Responses `top_logprobs`). */
  topLogprobs?: number;
  tools?: ToolDefinition[];
  /** A hosted web search the upstream may run (see WebSearchTool); `toolChoice` cannot name it. */
  webSearch?: WebSearchTool;
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  reasoning?: ReasoningConfig;
  /**
   * OpenRouter's `reasoning.exclude` on a Chat request: the model may reason as asked, but the
   * client gets none of it back (no reasoning text, details or encrypted items in the answer or
   * the stream). Read by the Chat encoders; the upstream request is not changed by it.
   */
  excludeReasoning?: boolean;
  /**
   * OpenRouter's usage accounting on a Chat request (`usage: {include: true}`): the answer's usage
   * (a stream's usage chunk, which it then gets) carries what the gateway charged, `usage.cost`.
   */
  reportCost?: boolean;
  responseFormat?: ResponseFormat;
  /**
   * What the answer may hold besides text when the client asked (Chat's `modalities`, as
   * OpenRouter and Vercel's gateway take it): `image` lets an image model (Gemini's) answer with
   * images. Absent: the upstream's default.
   */
  outputModalities?: Array<'text' | 'image'>;
  user?: string;
  metadata?: Record<string, string>;
  /** Responses: store the response for previous_response_id (default true). Chat: store the completion (default false); carried to a Responses upstream. */
  store?: boolean;
  /** OpenAI `service_tier` (auto | default | flex | scale | priority), from a Chat client; sent to a Responses upstream, which has the same tiers. */
  serviceTier?: string;
  /** OpenAI `verbosity` (low | medium | high), from a Chat client; a Responses upstream takes it as `text.verbosity`. */
  verbosity?: string;
  /** OpenAI `safety_identifier`, from a Chat client; sent to a Responses upstream. */
  safetyIdentifier?: string;
  previousResponseId?: string;
  /** Responses `conversation` (kept by the gateway): the answer names it; never sent upstream. */
  conversationId?: string;
  /**
   * The Responses input asked for a compaction (a `compaction_trigger` item, Codex's remote
   * compaction): the answer is one `compaction` item; a converted upstream writes the summary
   * (src/formats/responses/compaction.ts).
   */
  compaction?: boolean;
  /** OpenAI `prompt_cache_key` (Chat and Responses); sent only to OpenAI-format upstreams. */
  promptCacheKey?: string;
  /** OpenAI `prompt_cache_retention` (`in_memory` | `24h`); OpenAI-format upstreams only. */
  promptCacheRetention?: string;
  /** OpenAI `prompt_cache_options` (`{mode, ttl}`, GPT-5.6+), as sent; OpenAI-format upstreams only. */
  promptCacheOptions?: Record<string, unknown>;
  /** Fields of the inbound body the IR has no slot for; copied only when the target is the same format. */
  extra?: Record<string, unknown>;
  /**
   * Responses `item_reference` ids nothing in the gateway resolved: a same-format passthrough
   * sends them to the upstream as written (OpenAI resolves its stored items); a conversion cannot.
   */
  unresolvedReferences?: string[];
  /**
   * Parts of the inbound body the IR cannot hold (e.g. a Messages role the gateway does not
   * know): a same-format passthrough forwards them as written, a conversion answers 422 naming
   * the field.
   */
  unconvertible?: Unconvertible[];
}

/**
 * A part of an inbound body the IR cannot hold, and the 422 a conversion answers for it (a 400
 * when `missing`: what the IR lost leaves the request without something every upstream requires).
 */
export interface Unconvertible {
  field: string;
  message: string;
  missing?: true;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'pause' | 'error';

export interface Usage {
  /** All input tokens, cached ones included (OpenAI convention). */
  inputTokens: number;
  outputTokens: number;
  /** Cached input read (subset of inputTokens). */
  cacheReadTokens?: number;
  /** Cache writes (subset of inputTokens). */
  cacheWriteTokens?: number;
  /** The cache writes kept for an hour (Anthropic `ttl: "1h"`), billed at the 1-hour write price (subset of cacheWriteTokens). */
  cacheWrite1hTokens?: number;
  /** Reasoning tokens (subset of outputTokens). */
  reasoningTokens?: number;
  /** Hosted web searches the upstream bills, one per billed unit (Anthropic `server_tool_use.web_search_requests`, OpenAI `web_search_call` items, Gemini grounded prompts or queries). */
  webSearchRequests?: number;
  /** OpenAI's hosted image tool (`image_generation`): what it made and used, billed apart at the image model's prices. */
  imageGeneration?: ImageToolUsage;
}

/** What OpenAI's hosted image tool made and used in one response (its `tool_usage.image_gen`). */
export interface ImageToolUsage {
  /** Images it made (`image_generation_call` items). */
  images: number;
  /** The image model's own tokens, not part of the response's `usage`. */
  inputTokens: number;
  outputTokens: number;
  /** The image model (the tool's `model`, as the response echoes it); absent: OpenAI's default. */
  model?: string;
}

/** A complete (non-streamed) chat-like response. */
export interface ChatResponse {
  id: string;
  model: string;
  created: number;
  /** Assistant output in order: reasoning, text, refusal, tool calls. */
  content: ContentPart[];
  finishReason: FinishReason;
  stopSequence?: string | null;
  usage: Usage;
}

/**
 * A stream is a sequence of explicit parts. Blocks (text, reasoning, tool call) are opened,
 * filled and closed; at most one text or reasoning block is open at a time. A block's provider
 * metadata comes on its start part or, when it arrives late (Gemini sends a text part's
 * signature in a later chunk), on its end part (text-end, reasoning-end; tool calls: start).
 */
export type StreamPart =
  | { type: 'start'; id: string; model: string; created: number; usage?: Partial<Usage> }
  | { type: 'text-start'; providerMetadata?: ProviderMetadata; itemId?: string }
  | { type: 'text-delta'; text: string; logprobs?: TokenLogprob[] }
  | { type: 'text-end'; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-start'; itemId?: string; origin?: ReasoningOrigin; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-signature'; signature: string }
  | { type: 'reasoning-end'; encrypted?: string; providerMetadata?: ProviderMetadata }
  | { type: 'redacted-reasoning'; data: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string; itemId?: string; providerMetadata?: ProviderMetadata }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number }
  | { type: 'refusal-delta'; text: string }
  /** A hosted web search began (its query once known); its result follows as `web-search-end`. */
  | { type: 'web-search-start'; id: string; query?: string }
  /** The search ended: the whole part (query, sources or error). Not inside a text block. */
  | { type: 'web-search-end'; part: WebSearchPart }
  /** A citation of the open text block (its indices relative to that block's text, when known). */
  | { type: 'text-citation'; citation: UrlCitation }
  /** A whole image the model made (Gemini's image models), outside any text block; its metadata a Gemini thought signature. */
  | { type: 'image'; source: MediaSource; providerMetadata?: ProviderMetadata }
  | { type: 'finish'; finishReason: FinishReason; stopSequence?: string | null }
  | { type: 'usage'; usage: Usage }
  | { type: 'error'; error: StreamError }
  | { type: 'end' };

/** An error that arrives inside a stream (after the HTTP status was sent). */
export interface StreamError {
  code: string;
  message: string;
  status: number;
  /** The upstream's own error code (`invalid_image_url`), when it gave one (the client's `error.details.upstream_code`). */
  upstreamCode?: string;
  /** The request field the upstream refused (OpenAI `error.param`), on a refusal of the request (the client's `error.param`). */
  param?: string;
  /** The upstream said the gateway's account with it is out of credit (OpenAI's `insufficient_quota`): no wait mends it. */
  quotaExhausted?: true;
  /**
   * The HTTP status the upstream named for the failure (Gemini's `error.code`, Bedrock's `originalStatusCode`, the
   * status of an answer that broke the stream), when it named one (the client's `error.details.upstream_status`).
   */
  upstreamStatus?: number;
}

/**
 * A reliability event the gateway adds to a stream (spec §6.4): `routing` (how the request was
 * routed) or `fallback` (another candidate served), with its details. Wire-format free: each
 * format puts it on its wire where that format's SDKs tolerate it.
 */
export interface RoutingEvent {
  name: 'routing' | 'fallback';
  details: Record<string, unknown>;
}
