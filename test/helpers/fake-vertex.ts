/**
 * A strict fake of Vertex AI (`https://{location}-aiplatform.googleapis.com`, or the `global`
 * host, reached through the provider's `baseURL`): `/v1/projects/{p}/locations/{l}/publishers/google/models/{m}:…`
 * for Gemini and `publishers/anthropic/models/{m}:rawPredict|streamRawPredict` for Claude. Every
 * call needs `Authorization: Bearer <token>` issued by the fake token endpoint and not expired
 * (401 UNAUTHENTICATED), the configured project (403 PERMISSION_DENIED) and location (404).
 */
import { startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';
import { createGeminiHandler, googleError, type GeminiFakeOptions } from './fake-gemini.ts';
import { createClaudeHandler, type ClaudeFakeOptions } from './fake-vertex-claude.ts';
import type { FakeTokenEndpoint } from './fake-google-token.ts';

export interface VertexFakeOptions {
  tokens: FakeTokenEndpoint;
  project: string;
  location: string;
  gemini?: Omit<GeminiFakeOptions, 'apiKey'>;
  claude?: ClaudeFakeOptions;
}

export interface VertexFake extends FakeUpstream {
  /** Requests refused for a missing, unknown or expired token. */
  unauthenticated: number;
  rejections: string[];
  /** Gemini and Claude signatures this fake issued. */
  issued: Set<string>;
  /** The next `times` model calls get `reply` (a 429 RESOURCE_EXHAUSTED, a 500…). */
  failNext(reply: FakeReply, times?: number): void;
}

const PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:?]+):([A-Za-z]+)(?:\?(.*))?$/;

/** Starts the Vertex AI fake on 127.0.0.1. */
export async function startVertexFake(options: VertexFakeOptions): Promise<VertexFake> {
  const gemini = createGeminiHandler({ models: {}, ...options.gemini });
  const claude = createClaudeHandler({ models: {}, ...options.claude });
  const failures: FakeReply[] = [];
  let unauthenticated = 0;
  const handle = (request: ReceivedRequest): FakeReply => {
    const auth = String(request.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !options.tokens.accepts(auth.slice(7))) {
      unauthenticated += 1;
      return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
    }
    const match = request.method === 'POST' ? PATH.exec(request.path) : null;
    if (!match) return googleError(404, 'NOT_FOUND', `The requested URL ${request.path} was not found on this server.`);
    const [, project, location, publisher, model, method, query] = match;
    if (project !== options.project) return googleError(403, 'PERMISSION_DENIED', `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}' (or it may not exist).`);
    if (location !== options.location) return googleError(404, 'NOT_FOUND', `Publisher Model \`projects/${project}/locations/${location}/publishers/${publisher}/models/${model}\` was not found or your project does not have access to it.`);
    const failure = failures.shift();
    if (failure) return failure;
    const decoded = decodeURIComponent(model);
    if (publisher === 'google') return gemini.handle(request, { model: decoded, method, sse: new URLSearchParams(query ?? '').get('alt') === 'sse' }, true);
    if (decoded === 'count-tokens' && method === 'rawPredict') return claude.count(request.json);
    if (method !== 'rawPredict' && method !== 'streamRawPredict') return googleError(400, 'INVALID_ARGUMENT', `Method ${method} is not supported for publisher model ${decoded}.`);
    return claude.predict(request.json, decoded, method === 'streamRawPredict');
  };
  const base = await startFakeUpstream(handle);
  // Live views over both publishers' records.
  return Object.defineProperties(Object.assign(base, { failNext: (reply: FakeReply, times = 1) => void failures.push(...Array<FakeReply>(times).fill(reply)) }), {
    unauthenticated: { get: () => unauthenticated },
    rejections: { get: () => [...gemini.rejections, ...claude.rejections] },
    issued: { get: () => new Set([...gemini.issued, ...claude.issued]) },
  }) as VertexFake;
}
