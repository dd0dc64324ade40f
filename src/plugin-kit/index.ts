/** The public plugin kit: everything a provider plugin may import. */
export { definePlugin, defineProvider } from './define-plugin.ts';
export { PLUGIN_KEYS, describeShapeProblem, pluginShapeProblem, type PluginShapeProblem } from './plugin-shape.ts';
export { readBody, readJsonBody, bodyFrom, DEFAULT_TIMEOUTS, UpstreamHttpError } from '../upstream/index.ts';
export { GatewayError, isGatewayError, buildErrorEnvelope, type ErrorCode, type RequestIds } from '../errors/index.ts';
export type {
  ModelType, ModelCapability, ModelPricing, PriceTier, ModelSpec, PromptCacheMode, HostedToolsPolicy, Modality, CountRange, PluginCatalog, UpstreamTimeouts, UpstreamResponse, ChatCall,
  ImageGenerationCall, ImageEditCall, GeneratedImage, ImageResult, AudioFormat, SpeechCall, SpeechResult,
  TranscriptionCall, TranscriptSegment, TranscriptionResult, ProviderContext, PluginLogger, HttpRequest,
  HttpClient, HttpClientFactory, ProviderInstance, RequestPatch, RequestPatchContext, EmbeddingCall, EmbeddingResult, ModerationCall, ModerationResult, OptionsParser, ProviderPlugin,
  BatchCapability, NativeBatchRequest, NativeBatchSubmitCall, NativeBatchRef, NativeBatchPhase, NativeBatchStatus, NativeBatchResult,
  JobMediaType, JobUpload, JobSubmitCall, JobRef, JobPhase, JobOutput, JobStatus, JobContent, JobsCapability,
} from './types.ts';
export type { WireFormat } from '../ir/index.ts';
// OpenAI-compatible upstreams (the `openai` and `azure` plugins): reading answers, media calls, media model facts.
export { readOk, readOkJson, formValue } from './read-upstream.ts';
export { openaiMediaCalls } from './openai-media.ts';
export { openaiBatchCalls, type OpenAIBatchContext } from './openai-batches.ts';
export { sniffImageType, type OpenAIMediaContext } from './openai-images.ts';
export { toTranscription } from './openai-audio.ts';
export { OPENAI_MODEL_FACTS } from './openai-models.ts';
export type { AbortSource } from '../util/index.ts';
// A credential a plugin obtains at run time (keys a credential chain resolved, a token it fetched) is redacted like a configured apiKey;
// one that changes for as long as the gateway runs (a rotation, a token per call) is remembered as transient: only the newest are kept.
export { rememberSecret } from '../util/index.ts';
// A plugin may bring a wire format of its own (a provider-native API): its face and the IR it meets the others in.
export { defineFormat, sseFraming, jsonArrayFraming, FailedAnswerError } from '../formats/index.ts';
// AWS's binary event-stream message codec (Smithy's) and its bounds, for a format framed in it (Bedrock's).
export { eventStreamCodec, splitEventStream, awsExceptionOf, type EventStreamMessage } from '../formats/index.ts';
// Anthropic's rule for a format that reaches Claude (Bedrock Converse): a continued tool loop without signed thinking first is refused with thinking on.
export { continuesToolLoopWithoutThinking } from '../formats/index.ts';
export type {
  FormatDefinition, FormatRoute, RouteTarget, BodyShape, CredentialSource, ClientSigns, CloudFace, CloudRoutesElsewhere, StreamFraming, FrameReader, FrameWriter, WireRecord, RecordEnd,
  PassthroughRules, PassthroughRequest, RewriteContext, FormatCodec, EncodeRequestOptions, StreamDecoder, StreamEncoder,
  DecodedUpstreamError, PassthroughInfo, UsageTap,
} from '../formats/index.ts';
export type {
  ChatRequest, ChatResponse, StreamPart, StreamError, Usage, FinishReason, ContentPart, Message, TextPart, Role, RoutingEvent, ProviderMetadata, ToolChoice, ToolDefinition, MediaSource,
} from '../ir/index.ts';
