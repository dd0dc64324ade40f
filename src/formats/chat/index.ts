import type { FormatCodec } from '../types.ts';
import { chatStoredFiles } from './stored-files.ts';
import { defineFormat } from '../define-format.ts';
import { isOpenAIReasoningModel, prefixedId, sseFraming } from '../shared/index.ts';
import { chatPassthrough } from './pass-through.ts';
import { tellChatRecordEnd } from './tell-record-end.ts';
import { decodeChatError, decodeChatStreamError } from './decode-error.ts';
import { decodeChatRequest } from './decode-request.ts';
import { decodeChatResponse } from './decode-response.ts';
import { createChatStreamDecoder } from './decode-stream.ts';
import { encodeChatError, encodeChatStreamError } from './encode-error.ts';
import { encodeChatRequest } from './encode-request.ts';
import { encodeChatResponse } from './encode-response.ts';
import { createChatStreamEncoder } from './encode-stream.ts';
import { insertChatRoutingEvents } from './encode-routing-event.ts';
import { createChatUsageTap, readChatPassthroughResponse } from './read-passthrough.ts';
import { chatUsageCost } from './report-usage-cost.ts';

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const chatCodec: FormatCodec = {
  format: 'chat',
  decodeRequest: decodeChatRequest,
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  encodeResponse: encodeChatResponse,
  createStreamDecoder: createChatStreamDecoder,
  createStreamEncoder: createChatStreamEncoder,
  decodeError: decodeChatError,
  decodeStreamError: decodeChatStreamError,
  encodeError: encodeChatError,
  encodeStreamError: encodeChatStreamError,
  insertRoutingEvents: insertChatRoutingEvents,
  answerId: (id) => prefixedId('chatcmpl-', id),
  readPassthroughResponse: readChatPassthroughResponse,
  createUsageTap: createChatUsageTap,
};

/** OpenAI Chat Completions: its whole face. */
export const chatFormat = defineFormat({
  id: 'chat',
  title: 'OpenAI Chat Completions',
  routes: [{ method: 'POST', path: '/v1/chat/completions', from: 'body' }],
  credentials: [],
  forwardHeaders: ['openai-beta'],
  framing: sseFraming,
  codec: chatCodec,
  // A `file_id` naming a file uploaded to the gateway's /v1/files: read and sent inline (`file_data`).
  storedFiles: chatStoredFiles,
  terminal: tellChatRecordEnd,
  passthrough: chatPassthrough,
  // OpenRouter's `usage: {include: true}`: the answer's usage says what the gateway charged.
  usageCost: chatUsageCost,
  // `modalities: ['image', 'text']`, which OpenAI's own models refuse: only models the catalog says make images (OpenRouter's).
  imageOutput: 'image-models',
  // `web_search_options` is its only one (the IR's web search: no reader needed).
  vendorTools: { api: 'Chat Completions with web search' },
  // `max_completion_tokens` bounds reasoning and visible output alike: no thinking budget is held on top of it.
  capBoundsReasoning: true,
  // `tools[].function.name`: 400 "string does not match pattern" otherwise.
  fit: { noSampling: isOpenAIReasoningModel, toolName: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 } },
});

export {
  decodeChatRequest,
  encodeChatRequest,
  decodeChatResponse,
  encodeChatResponse,
  createChatStreamDecoder,
  createChatStreamEncoder,
  decodeChatError,
  decodeChatStreamError,
  encodeChatError,
  encodeChatStreamError,
  readChatPassthroughResponse,
  createChatUsageTap,
};
export { decodeChatFinishReason, encodeChatFinishReason } from './map-finish-reason.ts';
export { decodeChatUsage, encodeChatUsage } from './map-usage.ts';
export { decodeReasoningDetails, encodeReasoningDetails } from './map-reasoning.ts';
export { openAIErrorType } from './encode-error.ts';
export type { ChatReasoningDetail } from './types.ts';
export type { ChatEncodeRequestOptions } from './encode-request.ts';
export { tellChatRecordEnd } from './tell-record-end.ts';
export { chatPassthrough } from './pass-through.ts';
export { encodeChatRoutingEvent, insertChatRoutingEvents } from './encode-routing-event.ts';
