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

/** A route a built-in plugin brings (its wire format's), which an unknown path may be for. */
export interface PluginRoute {
  method: string;
  pattern: RegExp;
  /** What to configure. */
  hint: string;
}

const PLUGIN_ROUTES: readonly PluginRoute[] = [
  {
    method: 'POST',
    pattern: /^\/model\/[^/]+\/converse(-stream)?$/,
    // No apostrophe: the error's bound cuts a '…' quote, and one would pair with the next.
    hint: 'The Bedrock Converse routes come with the bedrock plugin: add a provider with plugin "bedrock" (any model then answers them); InvokeModel (/model/{id}/invoke) needs none.',
  },
];

/** The built-in plugin's route a path is, served once a provider uses the plugin; undefined for any other path. */
export function pluginRouteOf(method: string, path: string): PluginRoute | undefined {
  return PLUGIN_ROUTES.find((route) => route.method === method && route.pattern.test(path));
}

/** The Bedrock Runtime API's paths (InvokeModel, Converse, ApplyGuardrail, the async invokes…), which only the AWS SDKs ask. */
const AWS_CLIENT_PATH = /^\/(model|guardrail|guardrail-checks|async-invoke)(\/|$)/;

/**
 * Whether an unknown path is one the AWS SDKs ask: its 404 then carries `x-amzn-errortype` and a
 * top-level `message`, as the gateway's own Bedrock routes' errors do (RouteDef.awsErrors), so the
 * SDK raises ResourceNotFoundException rather than UnknownError.
 */
export function isAwsClientPath(path: string): boolean {
  return AWS_CLIENT_PATH.test(path);
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
