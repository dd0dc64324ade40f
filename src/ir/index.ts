export type {
  WireFormat, MediaSource, TextPart, ImagePart, FilePart, AudioPart, ToolCallPart, ToolResultPart,
  ReasoningPart, RefusalPart, ContentPart, Role, Message, ToolDefinition, ToolChoice, ReasoningEffort,
  ReasoningConfig, ResponseFormat, ChatRequest, FinishReason, Usage, ChatResponse, StreamPart, StreamError, RoutingEvent,
} from './types.ts';
