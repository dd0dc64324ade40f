import {
  definePlugin, OPENAI_MODEL_FACTS, openaiBatchCalls, openaiMediaCalls, readOkJson,
  type ChatCall, type EmbeddingCall, type EmbeddingResult, type HttpClient, type HttpRequest, type UpstreamResponse,
} from 'gateway/plugin-kit';
import { EntraTokens } from './entra.ts';
import { azureOptions, DEFAULT_API_VERSION, DEFAULT_AUTHORITY_HOST, DEFAULT_SCOPE, type AzureOptions } from './options.ts';

export type { AzureOptions } from './options.ts';

/** The OpenAI endpoints each wire format is served at. */
const PATHS = { chat: '/chat/completions', responses: '/responses' } as const;

/**
 * Where an OpenAI endpoint is on an Azure resource. v1: `/openai/v1{endpoint}`, the deployment
 * travels as `model`. Deployments: `/openai/deployments/{deployment}{endpoint}?api-version=…`,
 * except Responses, which Azure serves at `/openai/responses` with the deployment as `model`
 * (what the `AzureOpenAI` client sends).
 */
export function azurePath(options: Pick<AzureOptions, 'apiPath' | 'apiVersion'>, endpoint: string, deployment: string): string {
  if (options.apiPath === 'v1') return `/openai/v1${endpoint}${options.apiVersion ? `?api-version=${encodeURIComponent(options.apiVersion)}` : ''}`;
  const query = `?api-version=${encodeURIComponent(options.apiVersion ?? DEFAULT_API_VERSION)}`;
  if (endpoint === PATHS.responses) return `/openai${endpoint}${query}`;
  return `/openai/deployments/${encodeURIComponent(deployment)}${endpoint}${query}`;
}

/**
 * Where an endpoint of the files and batches API is on an Azure resource: `/openai/v1{endpoint}`
 * on v1, `/openai{endpoint}?api-version=…` on the deployments path (no deployment in it: the
 * batch's lines name their Global Batch deployment as `model`).
 */
export function azureFilesPath(options: Pick<AzureOptions, 'apiPath' | 'apiVersion'>, endpoint: string, query: Record<string, string> = {}): string {
  const version = options.apiPath === 'v1' ? options.apiVersion : (options.apiVersion ?? DEFAULT_API_VERSION);
  const search = new URLSearchParams(version ? { 'api-version': version, ...query } : query).toString();
  return `/openai${options.apiPath === 'v1' ? '/v1' : ''}${endpoint}${search ? `?${search}` : ''}`;
}

/** The path the config asked for, or the one its `apiVersion` implies (set: deployments; unset: v1). */
function apiPathOf(options: AzureOptions): 'v1' | 'deployments' {
  return options.apiPath ?? (options.apiVersion ? 'deployments' : 'v1');
}

/** An HTTP client that puts the Entra bearer token on every request (the token may have to be fetched first). */
function withBearer(client: HttpClient, tokens: EntraTokens): HttpClient {
  const send = (request: HttpRequest, authorization: string) => client.request({ ...request, headers: { ...request.headers, authorization } });
  return {
    request(request) {
      const header = tokens.header();
      return typeof header === 'string' ? send(request, header) : header.then((value) => send(request, value));
    },
    close: () => client.close(),
  };
}

/**
 * Azure OpenAI / Azure AI Foundry: model ids mapped to deployments (`models: [{ id, deployment }]`),
 * the GA v1 path or the dated deployments path, an `api-key` or a Microsoft Entra token; Chat
 * and Responses, embeddings, images and audio. Bodies are OpenAI's; Azure's content-filter
 * refusals (400 `content_filter`) are mapped by the gateway like any upstream error.
 */
export default definePlugin<AzureOptions>({
  name: 'azure',
  formats: ['chat'],
  // Responses where the provider or model entry says `formats: ['responses']` (or both).
  supportedFormats: ['chat', 'responses'],
  // Azure serves OpenAI's models: their prices, context windows and media facts apply to the ids.
  catalog: { provider: 'openai', models: OPENAI_MODEL_FACTS },
  options: azureOptions,
  setup(ctx) {
    const endpoint = ctx.options.endpoint ?? ctx.baseURL;
    if (!endpoint) throw new Error('endpoint is required (e.g. https://my-resource.openai.azure.com)');
    const options = { ...ctx.options, apiPath: apiPathOf(ctx.options) };
    const { tenantId, clientId, clientSecret } = ctx.options;
    const entra = tenantId !== undefined || clientId !== undefined || clientSecret !== undefined;
    const apiKey = ctx.apiKey ?? (entra ? undefined : process.env.AZURE_OPENAI_API_KEY);
    if (entra && ctx.apiKey) throw new Error('give either apiKey or tenantId/clientId/clientSecret (Microsoft Entra), not both');
    if (entra && !(tenantId && clientId && clientSecret)) throw new Error('Microsoft Entra needs tenantId, clientId and clientSecret');
    // Like the other plugins: no credentials is the upstream's 401 (provider_error), said once at start.
    if (!entra && !apiKey) ctx.log.warn(`provider '${ctx.id}': no apiKey (or AZURE_OPENAI_API_KEY) and no Microsoft Entra tenantId/clientId/clientSecret; Azure will refuse its calls`);

    const base = ctx.http.client(endpoint);
    const headers: Record<string, string> = { ...ctx.headers };
    if (apiKey) headers['api-key'] = apiKey;
    const client = entra
      ? withBearer(base, new EntraTokens(ctx.id, { tenantId: tenantId!, clientId: clientId!, clientSecret: clientSecret!, authorityHost: ctx.options.authorityHost ?? DEFAULT_AUTHORITY_HOST, scope: ctx.options.scope ?? DEFAULT_SCOPE }))
      : base;
    const path = (openaiEndpoint: string, deployment: string) => azurePath(options, openaiEndpoint, deployment);

    const jsonHeaders: Record<string, string> = { ...headers, 'content-type': 'application/json', accept: 'application/json' };
    const streamHeaders: Record<string, string> = { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' };

    function chat(call: ChatCall): Promise<UpstreamResponse> {
      return client.request({
        method: 'POST',
        // call.model is the deployment (the model entry's `deployment`, else its id).
        path: path(PATHS[call.format as keyof typeof PATHS], call.model),
        headers: call.stream ? streamHeaders : jsonHeaders,
        body: call.rawBody,
        abortOn: call,
      });
    }

    async function embeddings(call: EmbeddingCall): Promise<EmbeddingResult> {
      const response = await client.request({ method: 'POST', path: path('/embeddings', call.model), headers: jsonHeaders, body: JSON.stringify(call.body), signal: call.signal });
      const body = await readOkJson(response);
      const usage = body.usage as { prompt_tokens?: unknown } | undefined;
      return typeof usage?.prompt_tokens === 'number' ? { body, inputTokens: usage.prompt_tokens } : { body };
    }

    return {
      chat,
      embeddings,
      ...openaiMediaCalls({ client, http: ctx.http, headers, path }),
      // Used when the provider says `batches: 'native'`: the model entry's deployment must be a Global Batch (or Data Zone Batch) one.
      batches: openaiBatchCalls({ client, headers, path: (endpoint, query) => azureFilesPath(options, endpoint, query) }),
      close: () => client.close(),
    };
  },
});
