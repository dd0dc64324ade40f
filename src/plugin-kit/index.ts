/** The public plugin kit: everything a provider plugin may import. */
export { definePlugin, defineProvider } from './define-plugin.ts';
export { readBody, readJsonBody, bodyFrom, DEFAULT_TIMEOUTS, UpstreamHttpError } from '../upstream/index.ts';
export { GatewayError } from '../errors/index.ts';
export type {
  ModelType, ModelCapability, ModelPricing, ModelSpec, PromptCacheMode, HostedToolsPolicy, Modality, CountRange, PluginCatalog, UpstreamTimeouts, UpstreamResponse, ChatCall,
  ImageGenerationCall, ImageEditCall, GeneratedImage, ImageResult, AudioFormat, SpeechCall, SpeechResult,
  TranscriptionCall, TranscriptSegment, TranscriptionResult, ProviderContext, PluginLogger, HttpRequest,
  HttpClient, HttpClientFactory, ProviderInstance, OptionsParser, ProviderPlugin,
  BatchCapability, NativeBatchRequest, NativeBatchSubmitCall, NativeBatchRef, NativeBatchPhase, NativeBatchStatus, NativeBatchResult,
  JobMediaType, JobUpload, JobSubmitCall, JobRef, JobPhase, JobOutput, JobStatus, JobContent, JobsCapability,
} from './types.ts';
export type { WireFormat } from '../ir/types.ts';
export type { AbortSource } from '../util/abort.ts';
