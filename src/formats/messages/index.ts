import type { FormatCodec } from '../types.ts';
import { messagesStoredFiles } from './stored-files.ts';
import { defineFormat } from '../define-format.ts';
import { countBodyFor, loneResultsAsUserContent, pickCounted, readCount, prefixedId, sseFraming } from '../shared/index.ts';
import { tellMessagesRecordEnd } from './tell-record-end.ts';
import { decodeMessagesError, decodeMessagesStreamError } from './decode-error.ts';
import { decodeMessagesRequest } from './decode-request.ts';
import { capMessagesOutput, messagesVendorTools, readMessagesRequest } from './read-request.ts';
import { decodeMessagesResponse } from './decode-response.ts';
import { createMessagesStreamDecoder } from './decode-stream.ts';
import { encodeMessagesError, encodeMessagesStreamError } from './encode-error.ts';
import { encodeMessagesRequest } from './encode-request.ts';
import { encodeMessagesResponse } from './encode-response.ts';
import { createMessagesStreamEncoder } from './encode-stream.ts';
import { insertMessagesRoutingEvents } from './encode-routing-event.ts';
import { createMessagesUsageTap, readMessagesPassthroughResponse } from './read-passthrough.ts';
import { dropUnverifiableThinking } from './drop-unverifiable-thinking.ts';
import { BEDROCK_STREAM, bedrockModelIds, isVertexClaudeCount, readBedrockCountPath, readBedrockPath, readVertexClaudePath, vertexModelIds } from './read-path.ts';
import { readBedrockCountConverse, unwrapBedrockCount } from './unwrap-bedrock-count.ts';
import { shapeCloudBody } from './shape-cloud-body.ts';
import { bedrockStreamFraming } from './frame-bedrock-stream.ts';

/** What Anthropic's `/v1/messages/count_tokens` takes of a Messages body (`max_tokens`, `stream`, … are refused there). */
const MESSAGES_COUNTED = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking']);

/** A body without the cloud's own fields (Vertex's `anthropic_version`), as Anthropic's API takes it. */
function withoutCloudFields(body: Record<string, unknown>): Record<string, unknown> {
  if (body.anthropic_version === undefined) return body;
  const { anthropic_version: _version, ...rest } = body;
  return rest;
}

/** Anthropic Messages (`POST /v1/messages`). */
export const messagesCodec: FormatCodec = {
  format: 'messages',
  decodeRequest: decodeMessagesRequest,
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  encodeResponse: encodeMessagesResponse,
  createStreamDecoder: createMessagesStreamDecoder,
  createStreamEncoder: createMessagesStreamEncoder,
  decodeError: decodeMessagesError,
  decodeStreamError: decodeMessagesStreamError,
  encodeError: encodeMessagesError,
  encodeStreamError: encodeMessagesStreamError,
  insertRoutingEvents: insertMessagesRoutingEvents,
  answerId: (id) => prefixedId('msg_', id),
  readPassthroughResponse: readMessagesPassthroughResponse,
  createUsageTap: createMessagesUsageTap,
};

/** Anthropic Messages: its whole face. */
export const messagesFormat = defineFormat({
  id: 'messages',
  title: 'Anthropic Messages',
  routes: [
    { method: 'POST', path: '/v1/messages', from: 'body' },
    // Claude on Vertex AI (`:rawPredict`, `:streamRawPredict`) and Bedrock's InvokeModel: the model in the path, the
    // body the Messages body with the cloud's `anthropic_version` (shapeCloudBody). Vertex's paths sit inside Gemini's
    // broader `/v1/projects/**`: a URL below them these do not read goes to Gemini's route (src/server/routes). The
    // Vertex SDK puts its path after its base URL's: the gateway's root as base URL asks `/projects/…`.
    ...[
      '/v1/projects/:project/locations/:location/publishers/anthropic/models/**',
      '/v1beta1/projects/:project/locations/:location/publishers/anthropic/models/**',
      '/projects/:project/locations/:location/publishers/anthropic/models/**',
    ].map((path) => ({
      method: 'POST' as const,
      path,
      from: 'path' as const,
      readPath: readVertexClaudePath,
      shapeBody: shapeCloudBody,
      broad: true as const,
    })),
    // One segment for the id: the Bedrock SDKs percent-encode it (an ARN's or a gateway id's `/` as %2F); the bedrock plugin's Converse face has `/model/**`.
    // Under Bedrock Runtime's `/model` (clouds below): errors and request ids as the AWS SDKs read them.
    ...['/model/:model/invoke', '/model/:model/invoke-with-response-stream'].map((path) => ({
      method: 'POST' as const,
      path,
      from: 'path' as const,
      readPath: readBedrockPath,
      shapeBody: shapeCloudBody,
    })),
  ],
  // Bedrock's InvokeModel and CountTokens signed by an AWS SDK with the key as its access key id (docs/formats.md).
  credentials: [{ header: 'authorization', sigv4: true }],
  forwardHeaders: ['anthropic-beta'],
  // The Anthropic SDKs' `_request_id`, `MessageStream.request_id` and `APIError.requestID`.
  requestIdHeader: 'request-id',
  // Anthropic's SDKs send it on every call (models.list, models.retrieve too).
  clients: { header: 'anthropic-version' },
  // The Bedrock Runtime API (its SDK's operation paths: InvokeModel and Converse under /model/, ApplyGuardrail, the async
  // invokes), which only the AWS SDKs ask. Its routes here (InvokeModel, CountTokens) answer errors with the AWS SDKs'
  // x-amzn-errortype and top-level message (their own exception classes, not UnknownError) and the request id in the
  // header they read `$metadata.requestId` from; a path of it the gateway does not serve is their ResourceNotFoundException.
  clouds: [
    {
      paths: ['/model', '/guardrail', '/guardrail-checks', '/async-invoke'],
      requestIdHeader: 'x-amzn-requestid',
      awsErrors: true,
      otherFormats: [
        {
          format: 'bedrock-converse',
          method: 'POST',
          pattern: /^\/model\/[^/]+\/converse(-stream)?$/,
          // No apostrophe: the error's bound cuts a '…' quote, and one would pair with the next.
          missing: 'The Bedrock Converse routes come with the bedrock plugin: add a provider with plugin "bedrock" (any model then answers them); InvokeModel (/model/{id}/invoke) needs none.',
        },
      ],
    },
  ],
  framing: sseFraming,
  // Bedrock's InvokeModelWithResponseStream answers in AWS's event-stream (a client framing: upstreams answer SSE).
  framings: { sse: sseFraming, [BEDROCK_STREAM]: bedrockStreamFraming },
  codec: messagesCodec,
  // A document or image block naming a file uploaded to the gateway by file_id: read and sent inline.
  storedFiles: messagesStoredFiles,
  terminal: tellMessagesRecordEnd,
  hostedWebSearch: true,
  stopField: 'stop_sequences',
  vendorTools: { kind: 'Anthropic tool', api: 'the Anthropic Messages API', read: messagesVendorTools },
  // Anthropic has the `max` effort and no JSON mode.
  fit: { maxEffort: true, noJsonMode: true, noLogprobs: true, toolName: { pattern: /^[a-zA-Z0-9_-]{1,128}$/, maxLength: 128 } },
  passthrough: { read: readMessagesRequest, capOutput: capMessagesOutput, prepare: dropUnverifiableThinking },
  countTokens: {
    path: '/v1/messages/count_tokens',
    // Vertex's count (`…/publishers/anthropic/models/count-tokens:rawPredict`) names the model in the body, as this route does.
    readPath: (pathname) => (pathname === '/v1/messages/count_tokens' || isVertexClaudeCount(pathname) ? '' : undefined),
    alsoKnownAs: vertexModelIds,
    requiresModel: true,
    decode: (body, model) => decodeMessagesRequest({ max_tokens: 1, ...withoutCloudFields(body), model, stream: false }),
    upstreamBody: (body, upstreamModel) => countBodyFor(withoutCloudFields(body), upstreamModel),
    bodyFor: (request, upstreamModel, baseModel) => pickCounted(encodeMessagesRequest(loneResultsAsUserContent(request), { upstreamModel, baseModel, converted: true }), MESSAGES_COUNTED),
    readUpstream: (answer) => readCount(answer, 'input_tokens'),
    encode: (tokens) => ({ input_tokens: tokens }),
    // Bedrock's CountTokens: the InvokeModel body in base64 under input.invokeModel, `{inputTokens}` back.
    wrapped: {
      path: '/model/:model/count-tokens',
      readPath: readBedrockCountPath,
      alsoKnownAs: bedrockModelIds,
      unwrap: (body) => pickCounted(unwrapBedrockCount(body), MESSAGES_COUNTED),
      // `input.converse`: a Converse body, decoded by the bedrock plugin's format when a provider uses the plugin.
      otherFormat: {
        format: 'bedrock-converse',
        read: readBedrockCountConverse,
        at: 'input.converse',
        missing: 'input.converse: a Converse body is counted once a provider uses the bedrock plugin (it brings the Converse format); without one, send input.invokeModel with the InvokeModel body',
      },
      encode: (tokens) => ({ inputTokens: tokens }),
    },
  },
});

export {
  decodeMessagesRequest,
  encodeMessagesRequest,
  decodeMessagesResponse,
  encodeMessagesResponse,
  createMessagesStreamDecoder,
  createMessagesStreamEncoder,
  decodeMessagesError,
  decodeMessagesStreamError,
  encodeMessagesError,
  encodeMessagesStreamError,
  readMessagesPassthroughResponse,
  createMessagesUsageTap,
};
export { DEFAULT_MAX_TOKENS } from './encode-request.ts';
export { decodeMessagesStopReason, encodeMessagesStopReason } from './map-finish-reason.ts';
export { decodeMessagesUsage, encodeMessagesUsage } from './map-usage.ts';
export { anthropicErrorType } from './encode-error.ts';
export { encodeMessagesRoutingEvent, insertMessagesRoutingEvents } from './encode-routing-event.ts';
export { placeCacheBreakpoints, minCacheableTokens, MAX_CACHE_BREAKPOINTS, MIN_CACHEABLE_TOKENS } from './place-cache-breakpoints.ts';
