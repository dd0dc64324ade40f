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
