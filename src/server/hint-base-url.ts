import { GatewayError } from '../errors/index.ts';

/** A known route: its method and the pattern its path matches. */
export interface KnownRoute {
  method: string;
  pattern: RegExp;
}

/**
 * The route a client probably meant when its SDK's base URL has `/v1` once too often (the
 * Anthropic or Google SDK given `host/v1`: `/v1/v1/messages`) or once too few (an OpenAI SDK
 * given the bare host: `/chat/completions`), spec §5 rule 5; undefined when neither fixes it.
 */
export function suggestBaseUrl(method: string, path: string, origin: string, known: readonly KnownRoute[]): { path: string; hint: string } | undefined {
  const serves = (candidate: string) => known.some((route) => route.method === method && route.pattern.test(candidate));
  // @google/genai given the AI SDK's Google base URL (host/v1beta) adds /v1beta again.
  if (path.startsWith('/v1beta/v1beta/') && serves(path.slice('/v1beta'.length))) {
    return {
      path: path.slice('/v1beta'.length),
      hint: `The base URL has /v1beta once too often: the Google SDKs add /v1beta themselves and take the base URL ${origin} (@ai-sdk/google takes ${origin}/v1beta).`,
    };
  }
  if (path.startsWith('/v1/')) {
    const shorter = path.slice(3);
    if (shorter.startsWith('/v1') && serves(shorter)) {
      return { path: shorter, hint: `The base URL has /v1 once too often: the Anthropic and Google SDKs add /v1 (or /v1beta) themselves and take the base URL ${origin}; the OpenAI SDKs take ${origin}/v1.` };
    }
    return undefined;
  }
  const longer = `/v1${path}`;
  if (serves(longer)) return { path: longer, hint: `The base URL lacks /v1: the OpenAI SDKs take the base URL ${origin}/v1 (the Anthropic and Google SDKs take ${origin}).` };
  return undefined;
}

const NO_ROUTE = Symbol.for('gateway.server.noRoute');

/**
 * The 404 of a URL that a route's pattern took but its reader did not (a broad pattern such as
 * Gemini's `/v1beta/:provider/**`): app.ts answers it as it answers an unknown path, with the
 * base URL the client probably meant.
 */
export function noRoute(method: string, path: string): GatewayError {
  return Object.assign(new GatewayError('not_found', `No route for ${method} ${path}.`), { [NO_ROUTE]: true });
}

/** Whether `error` is a noRoute() 404. */
export function isNoRoute(error: unknown): boolean {
  return typeof error === 'object' && error !== null && NO_ROUTE in error;
}
