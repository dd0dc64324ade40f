import type { FormatCodec } from '../types.ts';
import { defineFormat } from '../define-format.ts';
import { jsonArrayFraming } from '../shared/index.ts';
import { geminiSseFraming, reframeGeminiError } from './sse-framing.ts';
import { decodeGeminiRequest } from './decode-request.ts';
import { decodeGeminiResponse } from './decode-response.ts';
import { createGeminiStreamDecoder } from './decode-stream.ts';
import { encodeGeminiRequest } from './encode-request.ts';
import { encodeGeminiResponse } from './encode-response.ts';
import { createGeminiStreamEncoder } from './encode-stream.ts';
import { decodeGeminiError, decodeGeminiStreamError, encodeGeminiError, encodeGeminiStreamError, geminiErrorStatus } from './errors.ts';
import { createGeminiUsageTap, readGeminiPassthroughResponse } from './read-passthrough.ts';
import { readGeminiPath } from './read-path.ts';
import { capGeminiOutput, geminiVendorTools, readGeminiRequest } from './read-request.ts';
import { tellGeminiRecordEnd } from './tell-record-end.ts';
import { geminiCountTokens, geminiModels, googlePage, pageSizeOf as googlePageSize } from './count-and-models.ts';
import { geminiEmbeddings } from './embed-content.ts';
import { geminiImages } from './predict-images.ts';
import { vertexModels } from './list-publisher-models.ts';
import { dropCarriedReasoning } from './drop-carried.ts';
import { findStoredFiles, inlineStoredFiles, storedFileMissing } from './stored-files.ts';
import { withoutRefusedLogprobs } from './map-logprobs.ts';

/** Google Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`). */
export const geminiCodec: FormatCodec = {
  format: 'gemini',
  decodeRequest: decodeGeminiRequest,
  encodeRequest: encodeGeminiRequest,
  decodeResponse: decodeGeminiResponse,
  encodeResponse: encodeGeminiResponse,
  createStreamDecoder: createGeminiStreamDecoder,
  createStreamEncoder: createGeminiStreamEncoder,
  decodeError: decodeGeminiError,
  decodeStreamError: decodeGeminiStreamError,
  encodeError: encodeGeminiError,
  errorStatus: geminiErrorStatus,
  encodeStreamError: encodeGeminiStreamError,
  // Google's SDKs read every stream record as a GenerateContentResponse: routing events have no place (headers carry them).
  insertRoutingEvents: (records) => records.slice(),
  readPassthroughResponse: readGeminiPassthroughResponse,
  createUsageTap: createGeminiUsageTap,
};

/** Vertex AI's path roots: under v1beta1 (the SDK's default in Vertex mode), v1, and none (`httpOptions.apiVersion: ''`). */
const VERTEX_PATHS = ['/v1beta1/projects/**', '/v1beta1/publishers/**', '/v1/projects/**', '/v1/publishers/**', '/projects/**', '/publishers/**'];

/** Google Gemini: its whole face. The model and stream flag are in the path; `alt=sse` picks SSE, else a JSON array. */
export const geminiFormat = defineFormat({
  id: 'gemini',
  title: 'Google Gemini (generateContent)',
  // `/v1/models/…` is Google's stable version (`apiVersion: 'v1'`): only POST below it (`**:model`, one segment or more), so
  // OpenAI's `GET /v1/models/{id}` stays its own and `POST /v1/models` a 405.
  routes: [
    { method: 'POST', path: '/v1beta/models/**', from: 'path', readPath: (pathname, query) => readGeminiPath(pathname, query) },
    { method: 'POST', path: '/v1/models/**:model', from: 'path', readPath: (pathname, query) => readGeminiPath(pathname, query) },
    // A gateway id without `models/` (`/v1beta/oc/gpt-4o:generateContent`): what the AI SDK's and LangChain's Google
    // models send for an id holding a slash. Below the routes above; only `/v1beta` (under `/v1` it would shadow OpenAI's).
    { method: 'POST', path: '/v1beta/:provider/**', from: 'path', readPath: (pathname, query) => readGeminiPath(pathname, query), broad: true },
    // Vertex AI's paths (@google/genai with `vertexai: true`): `/{v1beta1,v1}/[projects/{p}/locations/{l}/]publishers/{publisher}/models/{model}:…`,
    // and with no version (`apiVersion: ''`, the base URL at the root). Claude's `…/publishers/anthropic/models/…` inside them are the Messages format's.
    ...VERTEX_PATHS.map((path) => ({
      method: 'POST' as const,
      path,
      from: 'path' as const,
      readPath: (pathname: string, query: URLSearchParams) => readGeminiPath(pathname, query),
      broad: true as const,
    })),
  ],
  credentials: [{ header: 'x-goog-api-key' }, { query: 'key' }],
  // Everything @google/genai asks for is under these (caches, which the gateway does not serve: a 404 in Google's shape;
  // `apiVersion: 'v1alpha'`, which it does not serve either: a 404 saying so, never the dashboard's page for a GET);
  // off them (a base URL with /v1 once too often, the shared /v1/models) Google's SDKs are known by the headers they always send.
  clients: {
    pathPrefixes: ['/v1beta/', '/upload/v1beta/', '/download/v1beta/', '/upload/v1/', '/download/v1/', '/v1/cachedContents', '/v1beta1/', '/v1/projects/', '/v1/publishers/', '/projects/', '/publishers/', '/v1alpha/'],
    header: ['x-goog-api-client', 'x-goog-api-key'],
  },
  framing: geminiSseFraming,
  framings: { sse: geminiSseFraming, 'json-array': jsonArrayFraming },
  codec: geminiCodec,
  terminal: tellGeminiRecordEnd,
  // Another vendor's reasoning the gateway carried in a thoughtSignature (gwpm:) never reaches Google.
  // An error element goes to the client as the gateway's own would (the bare element in a chunk of its own).
  passthrough: { read: readGeminiRequest, capOutput: capGeminiOutput, prepare: dropCarriedReasoning, rewrite: reframeGeminiError },
  // googleSearch ↔ the IR's web search; groundingMetadata ↔ web search parts and text citations.
  hostedWebSearch: true,
  // `generationConfig.responseModalities`: Google answers a model that makes no images with its own 400.
  imageOutput: 'any-model',
  vendorTools: { api: 'the Gemini API', read: geminiVendorTools },
  stopField: 'generationConfig.stopSequences',
  // FunctionDeclaration.name: a letter or `_` first; letters, digits, `_ . : -`; at most 64 (400 INVALID_ARGUMENT otherwise).
  // Token log probabilities are asked (responseLogprobs); a model without them refuses, and the call goes once more without.
  fit: { withoutRefused: withoutRefusedLogprobs, toolName: { pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, maxLength: 64 } },
  countTokens: geminiCountTokens,
  embeddings: geminiEmbeddings,
  // Vertex AI's `:predict`: Imagen's shape for an image model (the embeddings face takes the same URL for an embedding model).
  images: geminiImages,
  models: geminiModels,
  // Vertex AI's publisher models (`@google/genai` in Vertex mode: models.get, models.list).
  modelPaths: vertexModels,
  // `fileData` naming a file uploaded to the gateway's Files API: read and sent as `inlineData`.
  storedFiles: { find: findStoredFiles, inline: inlineStoredFiles, missing: storedFileMissing },
});

export { readGeminiRequest, capGeminiOutput, decodeGeminiRequest, encodeGeminiRequest, decodeGeminiResponse, encodeGeminiResponse, createGeminiStreamDecoder, createGeminiStreamEncoder, readGeminiPath };
export { SKIP_SIGNATURE, GOOGLE } from './signature.ts';
export { camelizeGeminiBody } from './proto-json.ts';
export { googlePage, googlePageSize };
