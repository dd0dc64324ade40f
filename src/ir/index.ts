export type {
  WireFormat, ProviderMetadata, WithProviderMetadata, MediaSource, TextPart, TokenLogprob, ImagePart, FilePart, AudioPart, ToolCallPart, ToolResultPart,
  ReasoningPart, ReasoningOrigin, RefusalPart, WebSearchTool, WebSearchSource, WebSearchPart, UrlCitation, ContentPart, Role, Message, ToolDefinition, ToolChoice, ReasoningEffort,
  ReasoningConfig, ResponseFormat, ChatRequest, FinishReason, Usage, ImageToolUsage, ChatResponse, StreamPart, StreamError, RoutingEvent,
} from './types.ts';
export { TIERS, type Tier } from './tiers.ts';
export { MODEL_TYPES, type ModelType } from './model-types.ts';
export type { Unconvertible } from './types.ts';
