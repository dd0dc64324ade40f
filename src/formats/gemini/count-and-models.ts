import { validationError } from '../../errors/index.ts';
import type { ChatRequest, ContentPart } from '../../ir/index.ts';
import { badRequest, isRecord, readCount } from '../shared/index.ts';
import type { CountTokensFace, ListedModel, ModelListFace } from '../types.ts';
import { decodeGeminiRequest } from './decode-request.ts';
import { encodeGeminiRequest } from './encode-request.ts';
import { camelizeGeminiBody, protoName } from './proto-json.ts';
import { readGeminiPath } from './read-path.ts';

const COUNT = new Set(['countTokens']);

/** The request a `countTokens` body counts: `{contents}` or `{generateContentRequest: {…}}` (never both). */
function countedBody(raw: Record<string, unknown>): Record<string, unknown> {
  const body = camelizeGeminiBody(raw); // `generate_content_request` too, as Google reads it
  const inner = body.generateContentRequest;
  if (inner !== undefined && body.contents !== undefined) throw badRequest('Send either contents or generateContentRequest, not both.');
  if (inner === undefined) return body;
  if (!isRecord(inner)) throw badRequest('generateContentRequest must be an object.');
  return inner;
}

/** `POST /v1beta/models/{model}:countTokens` → `{totalTokens}` (the same path pattern as generateContent: the action tells). */
export const geminiCountTokens: CountTokensFace = {
  path: '/v1beta/models/**',
  readPath: (pathname, query) => readGeminiPath(pathname, query, COUNT)?.model,
  decode: (body, model): ChatRequest => decodeGeminiRequest(countedBody(body), { model, stream: false }),
  upstreamBody(body, upstreamModel) {
    // The wrapped request names its model; the client's spelling of the wrapper is kept.
    const key = protoName(body, 'generateContentRequest', 'generate_content_request');
    const inner = body[key];
    return isRecord(inner) ? { ...body, [key]: { ...inner, model: `models/${upstreamModel}` } } : body;
  },
  // The request as a generateContent body: the plugin sends it as Google's countTokens takes it (AI Studio wrapped, Vertex its members).
  bodyFor: (request, upstreamModel, baseModel) => encodeGeminiRequest(request, { upstreamModel, baseModel, converted: true }),
  readUpstream: (answer) => readCount(answer, 'totalTokens'),
  // Google's whole answer (promptTokensDetails, cachedContentTokenCount, …); a local count gives the TEXT breakdown when all is text.
  encode: (tokens, { upstream, request }) => upstream ?? localCount(tokens, request),
};

/** A local count as Google words it: the total, and the one-modality breakdown when the request holds only text. */
function localCount(tokens: number, request: ChatRequest): Record<string, unknown> {
  const media = request.messages.some((message) => message.content.some(isMedia));
  return media ? { totalTokens: tokens } : { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] };
}

function isMedia(part: ContentPart): boolean {
  if (part.type === 'tool_result') return typeof part.content !== 'string' && part.content.some(isMedia);
  return part.type === 'image' || part.type === 'audio' || part.type === 'file';
}

const PAGE = 50;
const MAX_PAGE = 1000;

/** What Google's `supportedGenerationMethods` says a model of each type takes here. */
const METHODS: Record<string, string[]> = {
  chat: ['generateContent', 'streamGenerateContent', 'countTokens'],
  embedding: ['embedContent', 'batchEmbedContents'],
};

/** The methods on a model AI Studio's paths serve (all by POST): inference, counting, embeddings, batches. */
const POST_METHODS = new Set([...Object.values(METHODS).flat(), 'batchGenerateContent']);
/** Vertex AI's paths serve those and `predict` (embeddings, Imagen), which AI Studio's do not. */
const VERTEX_POST_METHODS = new Set([...POST_METHODS, 'predict']);

function postMethodIn(methods: ReadonlySet<string>, rest: string): string | undefined {
  const method = rest.slice(rest.lastIndexOf(':') + 1);
  return rest.includes(':') && methods.has(method) ? method : undefined;
}

/** The POST method an AI Studio model path's rest names (`{model}:generateContent`), or undefined. */
export const readPostMethod = (rest: string): string | undefined => postMethodIn(POST_METHODS, rest);

/** The POST method a Vertex AI model path's rest names (`{model}:predict` too), or undefined. */
export const readVertexPostMethod = (rest: string): string | undefined => postMethodIn(VERTEX_POST_METHODS, rest);

function modelOf(model: ListedModel): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.displayName,
    description: `${model.displayName}, served by ${model.provider} through the gateway.`,
    supportedGenerationMethods: METHODS[model.type] ?? [],
  };
  if (model.contextWindow !== undefined) out.inputTokenLimit = model.contextWindow;
  if (model.maxOutputTokens !== undefined) out.outputTokenLimit = model.maxOutputTokens;
  if (model.type === 'chat') out.thinking = model.capabilities?.includes('thinking') === true;
  return out;
}

/** A whole number written in decimals, or undefined. */
function readWhole(value: string): number | undefined {
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/** `pageSize` as Google reads it (AIP-158): none or 0 is the default, over the maximum is the maximum, negative is refused. */
export function pageSizeOf(query: URLSearchParams): number {
  const raw = query.get('pageSize');
  if (raw === null || raw === '') return PAGE;
  const size = readWhole(raw);
  if (size === undefined) throw validationError({ pageSize: 'must be a whole number, 0 or more' });
  return size === 0 ? PAGE : Math.min(MAX_PAGE, size);
}

/** `pageToken`: the `nextPageToken` a page gave (the offset), else the first page. */
function pageStartOf(query: URLSearchParams): number {
  const raw = query.get('pageToken');
  if (raw === null || raw === '') return 0;
  const from = readWhole(raw);
  if (from === undefined) throw validationError({ pageToken: 'is not a nextPageToken this list gave' });
  return from;
}

/** One page of a Google list (`pageSize`, `pageToken` = the offset the last page gave): the models, the batches. */
export function googlePage<T>(items: readonly T[], query: URLSearchParams): { page: T[]; nextPageToken?: string } {
  const size = pageSizeOf(query);
  const from = pageStartOf(query);
  const page = items.slice(from, from + size);
  return from + size < items.length ? { page, nextPageToken: String(from + size) } : { page };
}

/** One page of models as Google lists them: `{[key]: [...], nextPageToken?}`, each model in `shape`. */
export function googleModelPage(models: readonly ListedModel[], query: URLSearchParams, key: string, shape: (model: ListedModel) => Record<string, unknown>): Record<string, unknown> {
  const { page, nextPageToken } = googlePage(models, query);
  const out: Record<string, unknown> = { [key]: page.map(shape) };
  if (nextPageToken !== undefined) out.nextPageToken = nextPageToken;
  return out;
}

/** `GET /v1beta/models` (`pageSize`, `pageToken` = the offset) and `GET /v1beta/models/{model}` in Gemini's shape. */
export const geminiModels: ModelListFace = {
  path: '/v1beta/models',
  list: (models, query) => googleModelPage(models, query, 'models', modelOf),
  one: modelOf,
  readId: (rest) => (rest.startsWith('models/') ? rest.slice('models/'.length) : rest),
  readPostMethod,
};
