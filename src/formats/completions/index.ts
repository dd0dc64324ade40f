import type { FormatCodec } from '../types.ts';
import { defineFormat } from '../define-format.ts';
import { capFields, prefixedId, sseFraming } from '../shared/index.ts';
import {
  chatPassthrough,
  createChatUsageTap,
  decodeChatError,
  decodeChatStreamError,
  encodeChatError,
  encodeChatStreamError,
  insertChatRoutingEvents,
  readChatPassthroughResponse,
  tellChatRecordEnd,
} from '../chat/index.ts';
import { decodeCompletionsRequest } from './decode-request.ts';
import { encodeCompletionsRequest } from './encode-request.ts';
import { decodeCompletionsResponse, encodeCompletionsResponse } from './map-response.ts';
import { createCompletionsStreamDecoder } from './decode-stream.ts';
import { createCompletionsStreamEncoder } from './encode-stream.ts';
import { readCompletionsRequest } from './read-request.ts';

/**
 * OpenAI's legacy Completions (`POST /v1/completions`). Its errors, stream end, usage chunk and
 * usage are Chat's (the same envelope, `[DONE]`, `choices: []` with `usage`, CompletionUsage),
 * so those come from the Chat folder; requests, answers and chunks are its own.
 */
export const completionsCodec: FormatCodec = {
  format: 'completions',
  decodeRequest: decodeCompletionsRequest,
  encodeRequest: encodeCompletionsRequest,
  decodeResponse: decodeCompletionsResponse,
  encodeResponse: encodeCompletionsResponse,
  createStreamDecoder: createCompletionsStreamDecoder,
  createStreamEncoder: createCompletionsStreamEncoder,
  decodeError: decodeChatError,
  decodeStreamError: decodeChatStreamError,
  encodeError: encodeChatError,
  encodeStreamError: encodeChatStreamError,
  insertRoutingEvents: (records, events) => insertChatRoutingEvents(records, events, 'text_completion'),
  answerId: (id) => prefixedId('cmpl-', id),
  readPassthroughResponse: readChatPassthroughResponse,
  createUsageTap: createChatUsageTap,
};

/** OpenAI legacy Completions: its whole face. A provider serves it natively with `formats: ['completions']`. */
export const completionsFormat = defineFormat({
  id: 'completions',
  title: 'OpenAI Completions (legacy)',
  routes: [{ method: 'POST', path: '/v1/completions', from: 'body' }],
  credentials: [],
  framing: sseFraming,
  codec: completionsCodec,
  terminal: tellChatRecordEnd,
  // Chat's rules (a stream asks for usage; the usage chunk the client did not ask for is dropped) over its own reader.
  passthrough: { ...chatPassthrough, read: readCompletionsRequest, capOutput: (body, max) => capFields(body, ['max_tokens'], max) },
  singlePrompt: true,
});

export { decodeCompletionsRequest, encodeCompletionsRequest, decodeCompletionsResponse, encodeCompletionsResponse, createCompletionsStreamDecoder, createCompletionsStreamEncoder };
