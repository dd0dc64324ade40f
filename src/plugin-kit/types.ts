import type { ModelType, Tier, WireFormat } from '../ir/index.ts';
import type { FormatDefinition } from '../formats/index.ts';
import type { HttpClientFactory, UpstreamResponse, UpstreamTimeouts } from '../upstream/index.ts';

export type { HttpClient, HttpClientFactory, HttpRequest, UpstreamResponse, UpstreamTimeouts } from '../upstream/index.ts';

export type { ModelType } from '../ir/index.ts';

export type ModelCapability =
  | 'streaming'
  | 'function_calling'
  | 'thinking'
  | 'vision'
  | 'documents'
  | 'json_mode'
  | 'image_edit'
  | 'speech'
  | 'transcription'
  | 'translation';

/** Prices in USD: per million tokens for text, per item for media. */
export interface ModelPricing {
  input?: number;
  output?: number;
  /** USD per million input tokens read from the provider's prompt cache (default: `input`). */
  cacheRead?: number;
  /** USD per million input tokens written to the provider's prompt cache (default: `input`). */
  cacheWrite?: number;
  /** USD per million input tokens written to a 1-hour prompt cache (Anthropic `ttl: "1h"`; default: 2 × `input`, docs/billing.md). */
  cacheWrite1h?: number;
  /** USD per generated image. */
  image?: number;
  /** USD per million characters of speech input. */
  speechChars?: number;
  /** USD per minute of transcribed audio. */
  audioMinute?: number;
  /** USD per second of generated video or music (jobs). */
  perSecond?: number;
  /** USD per generation job, whatever its length. */
  perJob?: number;
  /** USD per hosted web search the upstream ran (Anthropic `web_search_requests`, OpenAI `web_search_call` items). */
  webSearch?: number;
  /**
   * The most searches one answer is billed for, when the provider bills per grounded answer
   * rather than per search (Gemini 1.x and 2.x: 1). The credit hold takes no more than this many
   * searches for the model; absent: no bound beyond the request's own.
   */
  webSearchesPerAnswer?: number;
  /**
   * Long-context tiers: a request whose input (cached tokens included) is above
   * `aboveInputTokens` pays the highest such tier's token prices for all its tokens; a price
   * the tier leaves out stays the base one.
   */
  tiers?: PriceTier[];
}

/** One long-context price tier (USD per million tokens), e.g. Gemini 2.5 Pro above 200k input tokens. */
export interface PriceTier {
  /** The tier applies when the request's input tokens are more than this. */
  aboveInputTokens: number;
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  cacheWrite1h?: number;
}

/** What a model reads or writes (OpenRouter's `architecture` modalities). */
export type Modality = 'text' | 'image' | 'audio' | 'file' | 'video';

/** The allowed range of `n` (images per request). */
export interface CountRange {
  min: number;
  max: number;
}

/** A model as a plugin (or the config) declares it. */
export interface ModelSpec {
  id: string;
  type?: ModelType;
  capabilities?: ModelCapability[];
  /** Wire formats the upstream accepts natively for this model (overrides the provider's). */
  formats?: WireFormat[];
  pricing?: ModelPricing;
  contextWindow?: number;
  maxOutputTokens?: number;
  displayName?: string;
  /** Lowest account tier allowed to use the model (403 model_tier_restricted below it). */
  minTier?: Tier;
  /** What the model reads and writes; derived from the type when absent. */
  modalities?: { input?: Modality[]; output?: Modality[] };
  /** Image models: the `size` values accepted (422 for others); absent = any WxH passes. */
  sizes?: string[];
  /** Image models: the `quality` values accepted; absent = passed through unchecked. */
  qualities?: string[];
  /** Image models: the `style` values accepted; absent = passed through unchecked. */
  styles?: string[];
  /** Image models: how many images one request may ask for. */
  n?: CountRange;
  /** Speech models: the voices the upstream offers (shown in discovery). */
  voices?: string[];
  /** Gateway-placed cache breakpoints for converted requests to a Messages upstream (default: the provider's, else 'auto'). */
  promptCache?: PromptCacheMode;
  /** Hosted tools this model's upstream cannot run (default: the provider's, else 'drop'). */
  hostedTools?: HostedToolsPolicy;
}

/**
 * What happens to hosted tools (Responses `web_search`, Anthropic server tools, …) on a route
 * whose upstream cannot run them: `drop` them (named in `X-Gateway-Dropped-Tools`), or `reject`
 * the request with 422.
 */
export type HostedToolsPolicy = 'drop' | 'reject';

/** `auto`: the gateway places Anthropic cache breakpoints on converted requests; `off`: never. */
export type PromptCacheMode = 'auto' | 'off';

/**
 * What a plugin knows about models, beyond the bundled catalog: facts for the ids a provider
 * serves, never a list of served models (that is `models`).
 */
export interface PluginCatalog {
  /**
   * The bundled catalog's provider whose prices, context windows and capabilities apply
   * (e.g. `openai`), unless the provider's base URL belongs to another known provider.
   */
  provider?: string;
  /** Facts the bundled catalog lacks (media options, voices, per-item prices); they win over it. */
  models?: ModelSpec[];
  /**
   * Facts an id says about itself, for ids no list names (a config's own ids, `*` providers):
   * e.g. Bedrock's `…anthropic.claude…` ids take the Messages format. Above the bundled
   * catalog, below `models` and the config.
   */
  describe?(modelId: string): Partial<ModelSpec> | undefined;
}

/** A chat-like call, already encoded in a format the upstream speaks natively. */
export interface ChatCall {
  /** One of the formats the plugin declared (`supportedFormats`, else `formats`): the host guarantees it. */
  format: WireFormat;
  /**
   * The body parsed, for reading (the model's fields, options); `rawBody` is what is sent.
   * Editing it changes nothing upstream: per-provider edits go in `patchRequest`.
   */
  body: Record<string, unknown>;
  /**
   * The one body to send, always set: the exact bytes in `format` (the client's own on a
   * passthrough, the encoded request on a conversion), the upstream model id in place and the
   * provider's `patchRequest` already applied.
   */
  rawBody: string;
  /** The upstream model id (no provider prefix). */
  model: string;
  stream: boolean;
  /**
   * The stream framing to ask the upstream for, by name, when the format has several
   * (`FormatDefinition.framings`; Gemini: `sse` → `?alt=sse`, `json-array` → no `alt`): on a
   * passthrough the client's own; absent: the format's default framing. The answer is read in it.
   */
  framing?: string;
  /** Client headers worth forwarding (e.g. anthropic-beta); never the client's credentials. */
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** An embeddings request: the client's OpenAI body with the upstream model id. */
export interface EmbeddingCall {
  model: string;
  /** The inputs, in order (a string input is one): texts, or token-id arrays where the client sent tokens. */
  input: Array<string | number[]>;
  /** The OpenAI body as the client sent it, `model` replaced (dimensions, encoding_format, user, …). */
  body: Record<string, unknown>;
  signal: AbortSignal;
}

/** An OpenAI embeddings list body (`{object: "list", data, model, usage}`) and its input tokens, when the upstream said. */
export interface EmbeddingResult {
  body: Record<string, unknown>;
  inputTokens?: number;
}

/** A moderations request: the client's OpenAI body with the upstream model id. */
export interface ModerationCall {
  model: string;
  /** The inputs as the client sent them: a text, texts (one result each), or text and image parts (one result). */
  input: string | string[] | Array<Record<string, unknown>>;
  /** The OpenAI body as the client sent it, `model` set to the upstream's id. */
  body: Record<string, unknown>;
  signal: AbortSignal;
}

/** An OpenAI moderation body (`{id, model, results}`). */
export interface ModerationResult {
  body: Record<string, unknown>;
}

export interface ImageGenerationCall {
  /** The upstream model id (a model entry's `deployment` when it has one). */
  model: string;
  /** The gateway's id of the model (the catalog's, e.g. `gpt-image-1`), which `model` may not be (an Azure deployment). */
  modelId?: string;
  prompt: string;
  n: number;
  size: string;
  width: number;
  height: number;
  quality?: string;
  style?: string;
  seed?: number;
  negativePrompt?: string;
  /** Provider-specific parameters passed on as given. */
  extra: Record<string, unknown>;
  signal: AbortSignal;
}

export interface ImageEditCall extends ImageGenerationCall {
  image: { data: Uint8Array; filename: string; contentType: string };
  mask?: { data: Uint8Array; filename: string; contentType: string };
}

export interface GeneratedImage {
  /** PNG (or other) bytes. */
  data: Uint8Array;
  contentType: string;
  revisedPrompt?: string;
}

export interface ImageResult {
  images: GeneratedImage[];
  usage?: { inputTokens?: number; outputTokens?: number };
}

export type AudioFormat = 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';

export interface SpeechCall {
  model: string;
  input: string;
  voice: string;
  format: AudioFormat;
  speed: number;
  instructions?: string;
  signal: AbortSignal;
}

export interface SpeechResult {
  data: Uint8Array;
  contentType: string;
}

export interface TranscriptionCall {
  model: string;
  file: { data: Uint8Array; filename: string; contentType: string };
  language?: string;
  prompt?: string;
  temperature?: number;
  /** The format the client asked for; the gateway renders text/srt/vtt/verbose_json itself from segments. */
  responseFormat: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';
  /** Timestamps the client asked for (verbose_json); absent = segments only. */
  timestampGranularities?: Array<'word' | 'segment'>;
  task: 'transcribe' | 'translate';
  signal: AbortSignal;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export interface TranscriptionResult {
  /** The transcript (`""`: silence); absent when the provider sent none (then its segments carry it, or it returned no transcript). */
  text?: string;
  language?: string;
  duration?: number;
  segments?: TranscriptSegment[];
  words?: Array<{ word: string; start: number; end: number }>;
  /** Token usage, for upstreams that bill transcription by tokens (gpt-4o-transcribe). */
  usage?: { inputTokens?: number; outputTokens?: number };
}

/** What a plugin gets when the gateway sets up one configured provider. */
export interface ProviderContext<Options> {
  /** The provider id from the config (the `provider` in `provider/model`). */
  id: string;
  baseURL?: string;
  apiKey?: string;
  /** Extra headers from the config, sent on every upstream call. */
  headers: Record<string, string>;
  timeouts: UpstreamTimeouts;
  /** Plugin-specific options, validated by the plugin's `options` schema when given. */
  options: Options;
  http: HttpClientFactory;
  log: PluginLogger;
}

export interface PluginLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** One request of a native batch, already encoded in the upstream's wire format. */
export interface NativeBatchRequest {
  /**
   * The id to send upstream as the request's `custom_id` (chosen by the gateway, which maps it
   * back to the caller's): letters, digits, `_` and `-`, at most 64 characters.
   */
  customId: string;
  /** The request body in the batch's `format`, with the upstream model id; never streamed. */
  body: Record<string, unknown>;
}

/** What the gateway hands a plugin to start an upstream batch. */
export interface NativeBatchSubmitCall {
  /** The wire format of every request body (one of the capability's `formats`). */
  format: WireFormat;
  requests: NativeBatchRequest[];
  /** The gateway's batch id (`batch_…`), for upstream metadata and logs. */
  batchId: string;
  signal: AbortSignal;
}

/**
 * An upstream batch as the gateway keeps it: the upstream's id, and small plugin-private state
 * (e.g. result file ids) that is stored with the batch record and handed back on every call,
 * after a restart too.
 */
export interface NativeBatchRef {
  id: string;
  state: Record<string, unknown>;
}

/**
 * Where an upstream batch is, in the plugin kit's words (the plugin maps its provider's own
 * state names onto these; the gateway maps these onto OpenAI's batch states):
 * `pending` (accepted, not started), `running`, `cancelling`, `ended` (results can be read;
 * completed, cancelled or expired upstream), `failed` (the upstream refused the whole batch).
 */
export type NativeBatchPhase = 'pending' | 'running' | 'cancelling' | 'ended' | 'failed';

export interface NativeBatchStatus {
  phase: NativeBatchPhase;
  /** Requests finished so far, when the upstream says. */
  counts?: { total: number; succeeded: number; failed: number };
  /** Why the upstream refused the whole batch (phase `failed`). */
  error?: { code: string; message: string };
  /** Replaces the ref's state when given (kept with the batch record). */
  state?: Record<string, unknown>;
}

/** One request's result, by the `customId` it was submitted with. */
export type NativeBatchResult =
  /** `body`: the upstream's response body in the batch's format. */
  | { customId: string; type: 'succeeded'; body: Record<string, unknown> }
  /**
   * The upstream answered with an error: its HTTP status (or the one the error's kind stands for)
   * and its error body as it sent it; the gateway maps them to its own error codes.
   */
  | { customId: string; type: 'errored'; status: number; body?: unknown }
  /** Not run: the batch was cancelled, or its upstream window passed. */
  | { customId: string; type: 'canceled' | 'expired' };

/**
 * A provider's own batch API (optional capability). The gateway validates the caller's input
 * file, routes and converts each line into one of `formats` (model ids rewritten), submits
 * them, polls, reads the results back, converts them into the caller's format and bills each
 * succeeded line. Plugins never convert formats; they only move requests and results.
 */
export interface BatchCapability {
  /** The wire formats the upstream's batch API takes request bodies in. */
  formats: WireFormat[];
  /** Creates the upstream batch; returns its id and any state later calls need. */
  submit(call: NativeBatchSubmitCall): Promise<NativeBatchRef>;
  /** The upstream batch's phase (called every `batches.pollIntervalMs`). */
  poll(ref: NativeBatchRef, signal: AbortSignal): Promise<NativeBatchStatus>;
  /** The results of an `ended` batch, one per request that has one, in any order. */
  results(ref: NativeBatchRef, signal: AbortSignal): AsyncIterable<NativeBatchResult>;
  /** Asks the upstream to cancel; finished requests keep their results. */
  cancel(ref: NativeBatchRef, signal: AbortSignal): Promise<void>;
  /**
   * Optional: the upstream batch submitted for the gateway's `batchId`, if there is one (e.g.
   * found by metadata). Called after a restart that may have come between `submit` reaching the
   * upstream and the gateway recording its answer, so the batch is not submitted twice.
   */
  find?(batchId: string, signal: AbortSignal): Promise<NativeBatchRef | undefined>;
}

/** What a job makes: a Media Library type that runs as a long job (images and audio are answered at once). */
export type JobMediaType = 'video' | 'music' | 'threed';

/** An upload that goes with a job (e.g. a video's `input_reference` image). */
export interface JobUpload {
  data: Uint8Array;
  filename: string;
  contentType: string;
}

/** What the gateway hands a plugin to start one generation job. */
export interface JobSubmitCall {
  mediaType: JobMediaType;
  /** The upstream model id (no provider prefix). */
  model: string;
  prompt: string;
  /** Length asked for (video, music), when the client said. */
  seconds?: number;
  /** `WxH` asked for (video), when the client said. */
  size?: string;
  inputReference?: JobUpload;
  /** Provider-specific parameters passed on as given. */
  extra: Record<string, unknown>;
  /** The gateway's job id, for upstream metadata and logs. */
  jobId: string;
  signal: AbortSignal;
}

/** An upstream job: its id and small plugin-private state handed back on every call (after a restart too). */
export interface JobRef {
  id: string;
  state: Record<string, unknown>;
}

/** Where an upstream job is; the last four are final. */
export type JobPhase = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'expired';

/** What a finished job made, as far as the upstream says. */
export interface JobOutput {
  contentType?: string;
  seconds?: number;
  width?: number;
  height?: number;
  bytes?: number;
  /** Other content variants the upstream serves (e.g. `thumbnail`). */
  variants?: string[];
}

export interface JobStatus {
  phase: JobPhase;
  /** 0–100, when the upstream says. */
  progress?: number;
  /** Why the job failed (phase `failed`). */
  error?: { code: string; message: string };
  /** Phase `completed`: what was made. */
  output?: JobOutput;
  /** What the upstream charged, in USD, when it says (replaces the gateway's price). */
  costUsd?: number;
  /** Replaces the ref's state when given. */
  state?: Record<string, unknown>;
}

export interface JobContent {
  data: Uint8Array;
  contentType: string;
}

/**
 * Generation jobs (optional capability): video, music and 3D made over minutes. The gateway
 * submits once, polls until a final phase, fetches the content (through the gateway, with the
 * provider's key) and bills; plugins only move requests and bytes.
 */
export interface JobsCapability {
  /** The media types this provider's job models make. */
  mediaTypes: JobMediaType[];
  submit(call: JobSubmitCall): Promise<JobRef>;
  /** Called every `media.jobs.pollIntervalMs` until a final phase. */
  poll(ref: JobRef, signal: AbortSignal): Promise<JobStatus>;
  /** The bytes of a completed job; `variant` is `video` (the main content) or one of `output.variants`. */
  content(ref: JobRef, variant: string, signal: AbortSignal): Promise<JobContent>;
  /** Asks the upstream to stop the job; absent = the gateway stops polling and marks it cancelled. */
  cancel?(ref: JobRef, signal: AbortSignal): Promise<void>;
  /**
   * Seconds a job of `model` (the upstream id) makes when the client names no length, when it is
   * not OpenAI's default (4 s a video, 30 s music): the gateway holds credits for it and shows it.
   */
  defaultSeconds?(model: string): number;
}

/** What a provider's `patchRequest` sees of a call: read-only, before the patch. */
export interface RequestPatchContext {
  /** `chat` for `chat`, `countTokens` for `countTokens`. */
  purpose: 'chat' | 'countTokens';
  format: WireFormat;
  /** The upstream model id (no provider prefix). */
  model: string;
  stream: boolean;
  /** The body as it would go upstream without the patch. */
  body: Readonly<Record<string, unknown>>;
}

/**
 * A per-provider edit of a call's body (e.g. Claude on Vertex or Bedrock: no `model`, an
 * `anthropic_version`). The host applies it to the bytes it sends, on a passthrough exactly as
 * on a conversion: only the named top-level fields change, every other byte stays the client's.
 * A field both removed and set is set; a field set to `undefined` is removed.
 */
export interface RequestPatch {
  /** Top-level fields to set: replaced in place, else added last. */
  set?: Record<string, unknown>;
  /** Top-level fields to remove. */
  remove?: readonly string[];
}

/** The calls a set-up provider implements; any may be absent. */
export interface ProviderInstance {
  /**
   * The provider's edit of every `chat` and `countTokens` body, applied by the host before the
   * call (`call.body` and `call.rawBody` both carry it); undefined = no edit.
   */
  patchRequest?(context: RequestPatchContext): RequestPatch | undefined;
  /** Models served (when absent, the plugin's static `models` plus the config's list). */
  models?: ModelSpec[];
  chat?(call: ChatCall): Promise<UpstreamResponse>;
  /**
   * The upstream's own input-token counter for a body in `call.format` (Anthropic
   * `/v1/messages/count_tokens`, OpenAI `/responses/input_tokens`); rejects a format it cannot count.
   */
  countTokens?(call: ChatCall): Promise<UpstreamResponse>;
  /**
   * OpenAI's `POST /responses/compact` for a Responses body (`call.format` is `responses`, never
   * streamed), answered with its `response.compaction` object. Absent: the gateway has the model
   * write the summary through `chat` instead.
   */
  compactResponses?(call: ChatCall): Promise<UpstreamResponse>;
  /** OpenAI-shaped embeddings (`POST /v1/embeddings`) for `embedding` models. */
  embeddings?(call: EmbeddingCall): Promise<EmbeddingResult>;
  /** OpenAI-shaped moderations (`POST /v1/moderations`) for `moderation` models. */
  moderations?(call: ModerationCall): Promise<ModerationResult>;
  images?: {
    generate?(call: ImageGenerationCall): Promise<ImageResult>;
    edit?(call: ImageEditCall): Promise<ImageResult>;
  };
  audio?: {
    speech?(call: SpeechCall): Promise<SpeechResult>;
    transcribe?(call: TranscriptionCall): Promise<TranscriptionResult>;
  };
  /** The upstream's own batch API, used for providers configured with `batches: 'native'`. */
  batches?: BatchCapability;
  /** Generation jobs (video, music, 3D) for models of the matching `*_generation` type. */
  jobs?: JobsCapability;
  close?(): Promise<void>;
}

/** Parses plugin options; a zod schema fits (`{ parse }`). */
export interface OptionsParser<Options> {
  parse(input: unknown): Options;
  /**
   * The option keys the plugin takes. When given (or when `parse` is a zod object schema, whose
   * `shape` says it), any other key in the provider's config entry is a config error with a
   * "did you mean" suggestion, instead of being silently ignored.
   */
  keys?: readonly string[];
}

/** A provider plugin: what its upstream speaks, its models, and how to call it. */
export interface ProviderPlugin<Options = Record<string, unknown>> {
  name: string;
  /** Wire formats the upstream accepts natively for chat-like calls, preferred first (the default of a provider's `formats`). */
  formats: WireFormat[];
  /**
   * Every format `chat` may be called with (default: `formats`): a provider's or model's config
   * `formats` must be among them. The host never calls `chat` with any other format.
   */
  supportedFormats?: WireFormat[];
  /**
   * Wire formats this plugin brings (a provider-native API such as Gemini `generateContent`),
   * registered when the plugin loads: their routes, framing and codec become the gateway's.
   */
  wireFormats?: FormatDefinition[];
  /** Models every provider of this plugin serves unless the config lists its own. */
  models?: ModelSpec[];
  /**
   * The largest request body (bytes) the upstream's API documents taking (Anthropic's Messages: 32 MB):
   * the default of a provider's `maxRequestBytes`; a larger request is refused before the call.
   */
  maxRequestBytes?: number;
  /** Where the facts about listed model ids come from (bundled catalog provider, own entries). */
  catalog?: PluginCatalog;
  options?: OptionsParser<Options>;
  setup(context: ProviderContext<Options>): ProviderInstance | Promise<ProviderInstance>;
}
