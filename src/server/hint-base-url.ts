import { GatewayError } from '../errors/index.ts';

/** A known route: its method and the pattern its path matches. */
export interface KnownRoute {
  method: string;
  pattern: RegExp;
}

/**
 * The route a client probably meant when its SDK's base URL has `/v1` once too often (the
 * Anthropic or Google SDK given `host/v1`: `/v1/v1/messages`) or once too few (an OpenAI SDK
 * given the bare host: `/chat/completions`), names an API version the gateway has not
 * (`apiVersion: 'v1alpha'`) or has a doubled slash (a base URL ending in `/`), spec §5 rule 5;
 * undefined when nothing fixes it. `broad` routes (a pattern taking a whole subtree, as Vertex AI's `/v1beta1/projects/**`) count only for a
 * version written twice or a doubled slash: below such a root any path is that face's.
 */
export function suggestBaseUrl(
  method: string,
  path: string,
  origin: string,
  known: readonly KnownRoute[],
  broad: readonly KnownRoute[] = [],
): { path: string; hint: string } | undefined {
  const serves = (candidate: string) => known.some((route) => route.method === method && route.pattern.test(candidate));
  const servesBelowRoot = (candidate: string) => serves(candidate) || broad.some((route) => route.method === method && route.pattern.test(candidate));
  // A base URL ending in '/' (`host/v1/` or `host/`) makes the SDK's path start with a second one.
  const single = collapseSlashes(path);
  if (single !== path && servesBelowRoot(single)) {
    return { path: single, hint: `The path has a doubled slash: the client's base URL probably ends in '/'; drop it (${origin}/v1 for the OpenAI SDKs, ${origin} for the Anthropic and Google SDKs).` };
  }
  // @google/genai given the AI SDK's Google base URL (host/v1beta) adds its version again: /v1beta, or /v1 from @google/genai 3.
  if ((path.startsWith('/v1beta/v1beta/') || path.startsWith('/v1beta/v1/')) && serves(path.slice('/v1beta'.length))) {
    return {
      path: path.slice('/v1beta'.length),
      hint: `The base URL has /v1beta once too often: the Google SDKs add their API version themselves (/v1beta, or /v1 from @google/genai 3) and take the base URL ${origin} (@ai-sdk/google takes ${origin}/v1beta).`,
    };
  }
  // @google/genai in Vertex mode given host/v1beta1 adds /v1beta1 again.
  if (path.startsWith('/v1beta1/v1beta1/') && servesBelowRoot(path.slice('/v1beta1'.length))) {
    return {
      path: path.slice('/v1beta1'.length),
      hint: `The base URL has /v1beta1 once too often: @google/genai in Vertex mode adds /v1beta1 itself and takes the base URL ${origin}.`,
    };
  }
  // Google's preview version: the gateway serves Gemini's v1beta (the SDK's default) and v1.
  const alpha = /^\/v1alpha\/(models(?:\/.*)?)$/.exec(path);
  if (alpha && serves(`/v1beta/${alpha[1]}`)) {
    return {
      path: `/v1beta/${alpha[1]}`,
      hint: `This gateway serves Gemini's v1beta and v1, not v1alpha: leave httpOptions.apiVersion unset (the SDK's default: v1beta, or v1 from @google/genai 3) or set it to 'v1' or 'v1beta'.`,
    };
  }
  // OpenRouter's base URL is host/api/v1: a client moved from it with only the host changed.
  if (path.startsWith('/api/v1/') && serves(path.slice('/api'.length))) {
    const meant = path.slice('/api'.length);
    // Its Anthropic base URL is host/api (Claude Code's ANTHROPIC_BASE_URL): the Anthropic SDK adds /v1 itself, so /v1 would be doubled.
    if (meant === '/v1/messages' || meant.startsWith('/v1/messages/')) {
      return { path: meant, hint: `This is OpenRouter's path (/api/v1): the gateway serves the same API at /v1, and the Anthropic SDK adds /v1 itself, so an Anthropic client (Claude Code's ANTHROPIC_BASE_URL) takes the base URL ${origin}.` };
    }
    return { path: meant, hint: `This is OpenRouter's path (/api/v1): the gateway serves the same API at /v1, so an OpenAI or OpenRouter client takes the base URL ${origin}/v1.` };
  }
  const tuned = vertexTunedModelPath(path);
  if (tuned && servesBelowRoot(tuned.path)) return tuned;
  if (path.startsWith('/v1/')) {
    const shorter = path.slice(3);
    if (shorter.startsWith('/v1') && servesBelowRoot(shorter)) {
      return { path: shorter, hint: `The base URL has /v1 once too often: the Anthropic and Google SDKs add /v1 (or /v1beta, /v1beta1) themselves and take the base URL ${origin}; the OpenAI SDKs take ${origin}/v1.` };
    }
    return undefined;
  }
  const longer = `/v1${path}`;
  if (serves(longer)) return { path: longer, hint: `The base URL lacks /v1: the OpenAI SDKs take the base URL ${origin}/v1 (the Anthropic and Google SDKs take ${origin}).` };
  return undefined;
}

/** Vertex AI's path to a model of the project (a tuned or registered one), as @google/genai writes `models/{m}` in Vertex mode. */
const VERTEX_PROJECT_MODEL = /^(\/v1beta1(?:\/projects\/[^/]+\/locations\/[^/]+)?|(?:\/v1)?\/projects\/[^/]+\/locations\/[^/]+)\/models\/([^:]+):([A-Za-z]+)$/;

/**
 * @google/genai in Vertex mode sends a model named `models/mock/echo` as it is, under the project, where Vertex reads a
 * tuned model (AI Studio mode takes the same name as a base model): the publisher path it would send for `mock/echo`.
 */
function vertexTunedModelPath(path: string): { path: string; hint: string } | undefined {
  const match = VERTEX_PROJECT_MODEL.exec(path);
  if (!match) return undefined;
  const [, root, id, action] = match;
  const slash = id.indexOf('/');
  const [publisher, model] = slash > 0 ? [id.slice(0, slash), id.slice(slash + 1)] : ['google', id];
  return {
    path: `${root}/publishers/${publisher}/models/${model}:${action}`,
    hint: `In Vertex mode @google/genai sends a model named models/… as a tuned model of the project: name it without models/ ('${id}'), which it sends as publishers/${publisher}/models/${model}.`,
  };
}

/** `path` with each run of slashes taken as one (`//v1//files` is `/v1/files`). */
export function collapseSlashes(path: string): string {
  return path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
}

const NO_ROUTE = Symbol.for('gateway.server.noRoute');

/**
 * The 404 of a URL no route serves: an unknown path (app.ts), or one a route's pattern took but
 * its reader did not (a broad pattern such as Gemini's `/v1beta/:provider/**`), which app.ts
 * answers as it answers an unknown path, with the base URL the client probably meant. The error
 * body adds the model list of the client's API where it has its own (send.ts).
 */
export function noRoute(method: string, path: string, hint?: string): GatewayError {
  return Object.assign(new GatewayError('not_found', `No route for ${method} ${path}.${hint ? ` ${hint}` : ''}`), { [NO_ROUTE]: true });
}

/** A noRoute() 404 with one more sentence (what the client's own API lists), still a noRoute. */
export function withRouteHint(error: GatewayError, sentence: string): GatewayError {
  return Object.assign(new GatewayError('not_found', `${error.message} ${sentence}`, { details: error.details, headers: error.headers }), { [NO_ROUTE]: true });
}

/** Whether `error` is a noRoute() 404. */
export function isNoRoute(error: unknown): boolean {
  return typeof error === 'object' && error !== null && NO_ROUTE in error;
}
