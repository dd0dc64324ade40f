import type { ModelPathTarget, RouteTarget } from '../types.ts';

/** Google's API versions: `v1beta` (the SDKs' default) and `v1` (the stable one, `apiVersion: 'v1'`). */
const PREFIXES = ['/v1beta/models/', '/v1/models/'];
const ACTIONS = new Set(['generateContent', 'streamGenerateContent']);
/**
 * A gateway id with its provider and no `models/` (`/v1beta/oc/gpt-4o:generateContent`): the AI SDK's Google
 * provider and LangChain's Google model (@google/generative-ai) put an id holding a slash in the path as it is.
 * Not an API version there (`/v1beta/v1beta/models/…`: a base URL with /v1beta once too often, answered 404 with a hint).
 */
const BARE = /^\/v1beta\/(?!models\/|v1(?:alpha|beta)?\/)[^/:]+\/[^/]/;
/**
 * Vertex AI's paths, what `@google/genai` in Vertex mode (`vertexai: true`, gemini-cli with
 * `GOOGLE_GENAI_USE_VERTEXAI`) asks with its base URL at the gateway:
 * `/v1beta1/projects/{p}/locations/{l}/publishers/{publisher}/models/{model}:{action}`, or
 * without the project (an API key without one: Vertex express); with `apiVersion: ''` and the base URL at the
 * gateway's root, no version at all (`/projects/{p}/…`, `/publishers/{publisher}/…`). The SDK writes a model id
 * `a/b` as publisher `a`, model `b`: `publishers/google/models/{m}` is `{m}` (as `models/{m}`
 * on `/v1beta`), any other publisher is a gateway provider (`publishers/oc/models/gpt-4o` → `oc/gpt-4o`).
 */
const VERTEX = /^(?:\/v1|\/v1beta1)?\/(?:projects\/[^/]+\/locations\/[^/]+\/)?publishers\/([^/]+)\/models\/(.+)$/;
/**
 * A gateway id without `models/` under publisher `google` (`…/publishers/google/oc/gpt-4o:generateContent`): the AI
 * SDK's Vertex provider (@ai-sdk/google-vertex), its base URL Vertex's `…/publishers/google`, puts an id holding a
 * slash in the path as it is, as its Google provider does on `/v1beta`. Only an id that holds one.
 */
const VERTEX_BARE = /^(?:\/v1|\/v1beta1)?\/(?:projects\/[^/]+\/locations\/[^/]+\/)?publishers\/google\/(?!models\/)(.+)$/;

/** What follows `models/` on a Vertex path, a provider's publisher put before it; undefined off Vertex's paths. Still encoded. */
function vertexRest(pathname: string): string | undefined {
  const vertex = VERTEX.exec(pathname);
  if (vertex) return vertex[1] === 'google' ? vertex[2] : `${vertex[1]}/${vertex[2]}`;
  const bare = VERTEX_BARE.exec(pathname)?.[1];
  return bare !== undefined && /^[^:]*(?:\/|%2F)[^:]*:/i.test(bare) ? bare : undefined;
}

/**
 * `/v1beta/models/{model}:{action}` (or `/v1/models/…`) → the model and the stream flag. The model may hold
 * slashes (a gateway id with its provider, `google/gemini-2.5-flash`) and come with Google's
 * `models/` prefix, or without `models/` at all when it holds one (`/v1beta/oc/gpt-4o:…`); `streamGenerateContent` streams as SSE with `alt=sse`, else as one JSON array.
 */
export function readGeminiPath(pathname: string, query: URLSearchParams, actions: ReadonlySet<string> = ACTIONS): (RouteTarget & { action: string }) | undefined {
  const vertex = vertexRest(pathname);
  const prefix = vertex !== undefined ? '' : (PREFIXES.find((candidate) => pathname.startsWith(candidate)) ?? (BARE.test(pathname) ? '/v1beta/' : undefined));
  if (prefix === undefined) return undefined;
  let rest: string;
  try {
    rest = decodeURIComponent(vertex ?? pathname.slice(prefix.length));
  } catch {
    return undefined;
  }
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const action = rest.slice(colon + 1);
  if (!actions.has(action)) return undefined;
  let model = rest.slice(0, colon);
  if (model.startsWith('models/')) model = model.slice('models/'.length);
  if (model === '') return undefined;
  const stream = action === 'streamGenerateContent';
  const target: RouteTarget & { action: string } = { model, stream, action };
  if (stream) target.framing = query.get('alt') === 'sse' ? 'sse' : 'json-array';
  return target;
}

/** True for a path of Vertex AI's (`…/publishers/{publisher}/models/{model}:…`, or a gateway id without `models/`), not AI Studio's. */
export function isVertexPath(pathname: string): boolean {
  return vertexRest(pathname) !== undefined;
}

/** Vertex AI's publisher models, as `@google/genai` in Vertex mode lists them (GET, never under the project). */
const VERTEX_LIST = /^(?:\/v1|\/v1beta1)?\/(?:projects\/[^/]+\/locations\/[^/]+\/)?publishers\/google\/models$/;
/** Tuned models (`models.list({config: {queryBase: false}})`): the project's own `models`. */
const VERTEX_TUNED = /^(?:\/v1|\/v1beta1)?\/projects\/[^/]+\/locations\/[^/]+\/models$/;

/**
 * A GET of Vertex AI's model paths → the publisher models' list, the project's tuned models (the
 * gateway has none), or one model as the path names it (publisher `google` is the id, another is a
 * gateway provider, as for generateContent); undefined for any other path.
 */
export function readVertexModelPath(pathname: string): ModelPathTarget | undefined {
  if (VERTEX_LIST.test(pathname)) return { list: 'all' };
  if (VERTEX_TUNED.test(pathname)) return { list: 'none' };
  const vertex = VERTEX.exec(pathname);
  if (!vertex) return undefined;
  try {
    const publisher = decodeURIComponent(vertex[1]);
    const rest = decodeURIComponent(vertex[2]);
    return { id: publisher === 'google' ? rest : `${publisher}/${rest}`, rest };
  } catch {
    return undefined;
  }
}
