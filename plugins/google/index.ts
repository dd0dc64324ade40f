import { definePlugin, GatewayError, type ChatCall, type HttpClient, type ModelSpec, type RequestPatch, type RequestPatchContext, type UpstreamResponse } from 'gateway/plugin-kit';
import { serviceAccountTokens, staticToken, type TokenSource } from './access-token.ts';
import { googlePaths, upstreamOrigin } from './endpoints.ts';
import { describeGoogleModel, GEMINI_IMAGE_MODELS, GEMINI_MODELS, GOOGLE_MODEL_FACTS, VEO_MODELS, VERTEX_CLAUDE_MODELS } from './models.ts';
import { googleImages, IMAGEN_MODELS } from './images.ts';
import { OPTION_KEYS, parseGoogleOptions, type GoogleOptions } from './options.ts';
import { loadServiceAccount } from './service-account.ts';
import { countTokensBody } from './count-tokens-body.ts';
import { googleVideos } from './videos.ts';
import { googleEmbeddings } from './embeddings.ts';

export type { GoogleOptions } from './options.ts';

/** How a call is authenticated: AI Studio's API key header, or a Vertex bearer token. */
type Authorize = () => Promise<Record<string, string>>;

function vertexAuth(tokens: TokenSource | undefined, providerId: string): Authorize {
  return async () => {
    if (!tokens) throw new GatewayError('provider_error', `The provider '${providerId}' has no Google credentials: set credentials, accessToken or GOOGLE_APPLICATION_CREDENTIALS.`);
    return { authorization: `Bearer ${await tokens.token()}` };
  };
}

/** The Messages API version Vertex AI wants in the body of a Claude call. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * Claude on Vertex: the model is in the URL, not the body (its counter keeps it), and the body
 * names `anthropic_version` (a client's own is kept). The host applies it to the bytes it sends.
 */
function patchClaude(context: RequestPatchContext): RequestPatch | undefined {
  if (context.format !== 'messages') return undefined;
  const set = context.body.anthropic_version === undefined ? { anthropic_version: VERTEX_ANTHROPIC_VERSION } : undefined;
  return context.purpose === 'chat' ? { set, remove: ['model'] } : set && { set };
}

/**
 * Google: Gemini through AI Studio (`api: 'gemini'`, API key) or Vertex AI (`api: 'vertex'`,
 * service-account OAuth2 or an access token), and Claude on Vertex AI in the Messages format.
 */
export default definePlugin<GoogleOptions>({
  name: 'google',
  formats: ['gemini'],
  // Claude on Vertex speaks Messages (`:rawPredict`): its ids say `formats: ['messages']`.
  supportedFormats: ['gemini', 'messages'],
  // The Gemini API documents 100 MB of inline data in a request (January 2026; 20 MB before); read as MiB.
  maxRequestBytes: 100 * 1024 * 1024,
  catalog: { provider: 'google', models: GOOGLE_MODEL_FACTS, describe: describeGoogleModel },
  options: { parse: parseGoogleOptions, keys: OPTION_KEYS },
  setup(ctx) {
    const options = ctx.options;
    const vertex = options.api === 'vertex';
    const account = vertex && !options.accessToken ? loadServiceAccount(options.credentials) : undefined;
    const project = options.project ?? account?.projectId;
    if (vertex && !project && (account || options.accessToken)) throw new Error('project is required (the service-account key names none)');
    if (vertex && !account && !options.accessToken) ctx.log.warn(`provider '${ctx.id}': no Google credentials (credentials, accessToken or GOOGLE_APPLICATION_CREDENTIALS); its calls will fail`);
    const tokens = options.accessToken ? staticToken(options.accessToken) : account ? serviceAccountTokens(account, ctx.http) : undefined;
    const paths = googlePaths(options, project);
    const client: HttpClient = ctx.http.client(upstreamOrigin(options, ctx.baseURL));
    const keyHeader: Record<string, string> = ctx.apiKey ? { 'x-goog-api-key': ctx.apiKey } : {};
    const authorize: Authorize = vertex ? vertexAuth(tokens, ctx.id) : () => Promise.resolve(keyHeader);
    const base = { 'content-type': 'application/json', ...ctx.headers };

    function claudeOnly(call: ChatCall): void {
      if (!vertex) throw new GatewayError('bad_request', `The provider '${ctx.id}' (api: 'gemini') serves Gemini models only; Claude '${call.model}' needs api: 'vertex'.`);
    }

    async function send(call: ChatCall, path: string, body: string, extra: Record<string, string> = {}): Promise<UpstreamResponse> {
      const headers = { ...base, ...(await authorize()), ...extra };
      return client.request({ method: 'POST', path, headers, body, abortOn: call });
    }

    function chat(call: ChatCall): Promise<UpstreamResponse> {
      if (call.format === 'messages') {
        const accept = call.stream ? 'text/event-stream' : 'application/json';
        claudeOnly(call);
        const beta = call.headers['anthropic-beta'];
        return send(call, paths.claude(call.model, call.stream), call.rawBody, beta ? { accept, 'anthropic-beta': beta } : { accept });
      }
      // A passthrough stream asks Google for the client's own framing (`json-array`: no `alt=sse`).
      const sse = call.framing !== 'json-array';
      return send(call, paths.gemini(call.model, call.stream, sse), call.rawBody, { accept: call.stream && sse ? 'text/event-stream' : 'application/json' });
    }

    function countTokens(call: ChatCall): Promise<UpstreamResponse> {
      if (call.format === 'messages') {
        claudeOnly(call);
        // Vertex's counter keeps `model` in the body (it is not in the path).
        return send(call, paths.claudeCount(), call.rawBody, { accept: 'application/json' });
      }
      return send(call, paths.geminiCount(call.model), JSON.stringify(countTokensBody(call, options.api)), { accept: 'application/json' });
    }

    const media = [...GEMINI_IMAGE_MODELS, ...IMAGEN_MODELS, ...VEO_MODELS];
    const models: ModelSpec[] = vertex ? [...GEMINI_MODELS, ...VERTEX_CLAUDE_MODELS, ...media] : [...GEMINI_MODELS, ...media];
    const images = googleImages({ providerId: ctx.id, client, authorize, paths, headers: ctx.headers });
    // Veo's clips: AI Studio serves them as file downloads, Vertex inline or in Cloud Storage (a baseURL stands in for both hosts).
    const jobs = googleVideos({ providerId: ctx.id, vertex, client, http: ctx.http, authorize, paths, headers: ctx.headers, storageOrigin: ctx.baseURL ? upstreamOrigin(options, ctx.baseURL) : 'https://storage.googleapis.com' });
    // Embedding models (gemini-embedding-001, …) answer OpenAI's embeddings and the Gemini face's embedContent.
    const embeddings = googleEmbeddings({ vertex, client, authorize, paths, headers: ctx.headers });
    return { models, chat, countTokens, embeddings, images, jobs, patchRequest: vertex ? patchClaude : undefined, close: () => client.close() };
  },
});
