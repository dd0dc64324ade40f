import type { FormatCodec, UsageTap } from '../types.ts';
import { responsesStoredFiles } from './stored-files.ts';
import type { GatewayError, RequestIds } from '../../errors/index.ts';
import { defineFormat } from '../define-format.ts';
import { countBodyFor, isOpenAIReasoningModel, loneResultsAsUserContent, pickCounted, readCount, sseFraming } from '../shared/index.ts';
import { responseIdFor } from './create-id.ts';
import { responsesPassthrough } from './pass-through.ts';
import { tellResponsesRecordEnd } from './tell-record-end.ts';
import { decodeResponsesError, decodeResponsesStreamError } from './decode-error.ts';
import { decodeResponsesRequest } from './decode-request.ts';
import { decodeResponsesResponse } from './decode-response.ts';
import { createResponsesStreamDecoder } from './decode-stream.ts';
import { encodeResponsesError, encodeResponsesStreamedRefusal, encodeResponsesStreamError, encodeResponsesStreamFailure } from './encode-error.ts';
import { encodeResponsesRequest } from './encode-request.ts';
import { withoutRefusedSummary } from './encode-settings.ts';
import { encodeResponsesResponse } from './encode-response.ts';
import { createResponsesStreamEncoder } from './encode-stream.ts';
import { insertResponsesRoutingEvents } from './encode-routing-event.ts';
import { createResponsesUsageTap, finishResponsesPassthrough, nextSequenceNumber, readResponsesPassthrough } from './read-passthrough.ts';
import { responsesVendorTools } from './read-request.ts';

/** What OpenAI's `/v1/responses/input_tokens` takes of a Responses body (`stream`, `store`, `max_output_tokens`, … are unknown parameters there). */
/** A count body without the reasoning summary a thinking client's request asks for. */
const withoutSummary = (body: Record<string, unknown>): Record<string, unknown> => withoutRefusedSummary(body, 'reasoning.summary')?.body ?? body;

const RESPONSES_COUNTED = new Set(['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'truncation']);

/** The OpenAI Responses (`POST /v1/responses`) codec. */
export const responsesCodec = {
  format: 'responses',
  decodeRequest: (body: unknown) => decodeResponsesRequest(body),
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  encodeResponse: encodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
  createStreamEncoder: createResponsesStreamEncoder,
  decodeError: decodeResponsesError,
  decodeStreamError: decodeResponsesStreamError,
  encodeError: encodeResponsesError,
  encodeStreamError: (error: GatewayError, ids: RequestIds, tap?: UsageTap) => encodeResponsesStreamError(error, ids, nextSequenceNumber(tap)),
  encodeStreamFailure: (error: GatewayError, ids: RequestIds, tap?: UsageTap) => encodeResponsesStreamFailure(error, ids, nextSequenceNumber(tap), tap?.info ?? {}),
  encodeStreamedRefusal: encodeResponsesStreamedRefusal,
  finishPassthrough: finishResponsesPassthrough,
  insertRoutingEvents: insertResponsesRoutingEvents,
  answerId: responseIdFor,
  readPassthroughResponse: readResponsesPassthrough,
  createUsageTap: createResponsesUsageTap,
} as const satisfies FormatCodec;

/** OpenAI Responses: its whole face (the stored-response routes live with the Responses store). */
export const responsesFormat = defineFormat({
  id: 'responses',
  title: 'OpenAI Responses',
  routes: [{ method: 'POST', path: '/v1/responses', from: 'body' }],
  credentials: [],
  forwardHeaders: ['openai-beta'],
  framing: sseFraming,
  codec: responsesCodec,
  // A `file_id` naming a file uploaded to the gateway's /v1/files: read and sent inline (`file_data`).
  storedFiles: responsesStoredFiles,
  terminal: tellResponsesRecordEnd,
  hostedWebSearch: true,
  // OpenAI's hosted image tool (`{type: 'image_generation'}`), which the model calls.
  imageOutput: 'any-model',
  vendorTools: { api: 'the Responses API', read: responsesVendorTools },
  // `max_output_tokens` bounds reasoning and visible output alike: no thinking budget is held on top of it.
  capBoundsReasoning: true,
  // A function tool's `name`: 400 "string does not match pattern" otherwise.
  fit: { noSampling: isOpenAIReasoningModel, noStop: true, withoutRefused: withoutRefusedSummary, toolName: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 } },
  passthrough: responsesPassthrough,
  countTokens: {
    path: '/v1/responses/input_tokens',
    decode: (body, model) => decodeResponsesRequest({ input: [], ...body, model, stream: false }),
    upstreamBody: countBodyFor,
    // Without a reasoning summary: it changes no input token, and OpenAI refuses it to an organization it has not verified.
    bodyFor: (request, upstreamModel, baseModel) => withoutSummary(pickCounted(encodeResponsesRequest(loneResultsAsUserContent(request), { upstreamModel, baseModel, converted: true }), RESPONSES_COUNTED)),
    readUpstream: (answer) => readCount(answer, 'input_tokens'),
    encode: (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }),
  },
});

export { decodeResponsesRequest, type DecodeRequestOptions } from './decode-request.ts';
export { encodeResponsesRequest, type ResponsesEncodeRequestOptions } from './encode-request.ts';
export type { ForeignReasoning } from './encode-input.ts';
export { decodeResponsesResponse } from './decode-response.ts';
export { encodeResponsesResponse } from './encode-response.ts';
export { createResponsesStreamDecoder } from './decode-stream.ts';
export { createResponsesStreamEncoder } from './encode-stream.ts';
export { decodeResponsesError, decodeResponsesStreamError } from './decode-error.ts';
export { encodeResponsesError, encodeResponsesStreamError } from './encode-error.ts';
export { readResponsesPassthrough, createResponsesUsageTap, type ResponsesUsageTap } from './read-passthrough.ts';
export { responseToHistory, prependHistory } from './rebuild-history.ts';
export { conversationIdOf } from './require-body.ts';
export { responseIdFor, storedItemId, storedItemPlace } from './create-id.ts';
export { encryptedContentFor } from './encode-output.ts';
export { encodeResponsesRoutingEvent, insertResponsesRoutingEvents } from './encode-routing-event.ts';
export { nameStoredIds } from './pass-through.ts';
export { compactionRequest, compactedResponse, hasCompactionTrigger } from './compaction.ts';
export { replayResponseStream } from './replay-stream.ts';
export { asListedItem, inputItemsOf, itemsList, pageInputItems, type InputItemsPage, type InputItemsQuery } from './list-input-items.ts';
export { hasHistoryForm } from './decode-input.ts';
