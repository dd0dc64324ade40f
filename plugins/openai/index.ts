import { definePlugin, GatewayError, OPENAI_MODEL_FACTS, openaiBatchCalls, openaiMediaCalls, readOkJson, type ChatCall, type EmbeddingCall, type EmbeddingResult, type ModerationCall, type ModerationResult, type UpstreamResponse } from 'gateway/plugin-kit';
import { openaiVideos } from './videos.ts';

/** Options of the `openai` plugin beyond the common provider keys. */
export interface OpenAIOptions {
  /** OpenAI organization header, if any. */
  organization?: string;
  /** OpenAI project header, if any. */
  project?: string;
}

function parseOptions(input: unknown): OpenAIOptions {
  const o = (input ?? {}) as Record<string, unknown>;
  for (const key of ['organization', 'project']) {
    if (o[key] !== undefined && typeof o[key] !== 'string') throw new Error(`${key} must be a string`);
  }
  return { organization: o.organization as string | undefined, project: o.project as string | undefined };
}

/** Paths of the OpenAI wire formats this plugin speaks. */
const PATHS = { chat: '/chat/completions', responses: '/responses', completions: '/completions' } as const;

/**
 * Any OpenAI-compatible upstream (OpenAI, OpenRouter, vLLM, Ollama, Groq…): Chat Completions,
 * Responses where the provider or model entry says `formats: ['responses']`, and legacy
 * Completions (`/completions`) where it names `completions`.
 */
export default definePlugin<OpenAIOptions>({
  name: 'openai',
  formats: ['chat'],
  // Responses or legacy Completions where the provider or model entry says so (`formats: ['responses']`, `['chat', 'completions']`).
  supportedFormats: ['chat', 'responses', 'completions'],
  // Prices, context windows and capabilities of listed ids from the bundled catalog (the base
  // URL's provider when it is a known one, e.g. OpenRouter or Groq; else OpenAI's).
  catalog: { provider: 'openai', models: OPENAI_MODEL_FACTS },
  options: { parse: parseOptions, keys: ['organization', 'project'] },
  setup(ctx) {
    if (!ctx.baseURL) throw new Error('baseURL is required (e.g. https://api.openai.com/v1)');
    const client = ctx.http.client(ctx.baseURL);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...ctx.headers };
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    // Keyless is right for a local vLLM or Ollama; for OpenAI itself it is an unset variable.
    const keyed = ctx.apiKey || Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
    if (!keyed && new URL(ctx.baseURL).hostname === 'api.openai.com') ctx.log.warn(`provider '${ctx.id}': no apiKey (is OPENAI_API_KEY set?); OpenAI will refuse its calls`);
    if (ctx.options.organization) headers['openai-organization'] = ctx.options.organization;
    if (ctx.options.project) headers['openai-project'] = ctx.options.project;

    // Built once: spreading the headers per call costs about a microsecond on Node 20.
    const streamHeaders: Record<string, string> = Object.assign({}, headers, { accept: 'text/event-stream' });
    const jsonHeaders: Record<string, string> = Object.assign({}, headers, { accept: 'application/json' });

    // Not async: it hands back the client's own promise (a wrapper costs a few microtask hops per call).
    function chat(call: ChatCall): Promise<UpstreamResponse> {
      const beta = call.headers['openai-beta'];
      const base = call.stream ? streamHeaders : jsonHeaders;
      return client.request({
        method: 'POST',
        path: PATHS[call.format as keyof typeof PATHS],
        headers: beta ? Object.assign({}, base, { 'openai-beta': beta }) : base,
        body: call.rawBody,
        // Not `signal: call.signal`: the call's AbortSignal is then never made (a few µs per call).
        abortOn: call,
      });
    }

    function compactResponses(call: ChatCall): Promise<UpstreamResponse> {
      return client.request({ method: 'POST', path: '/responses/compact', headers: jsonHeaders, body: call.rawBody, abortOn: call });
    }

    function countTokens(call: ChatCall): Promise<UpstreamResponse> {
      if (call.format !== 'responses') return Promise.reject(new GatewayError('bad_request', 'OpenAI counts input tokens for Responses bodies only.'));
      return client.request({ method: 'POST', path: '/responses/input_tokens', headers: jsonHeaders, body: call.rawBody, abortOn: call });
    }

    async function embeddings(call: EmbeddingCall): Promise<EmbeddingResult> {
      const response = await client.request({ method: 'POST', path: '/embeddings', headers: jsonHeaders, body: JSON.stringify(call.body), signal: call.signal });
      const body = await readOkJson(response);
      const usage = body.usage as { prompt_tokens?: unknown } | undefined;
      return typeof usage?.prompt_tokens === 'number' ? { body, inputTokens: usage.prompt_tokens } : { body };
    }

    async function moderations(call: ModerationCall): Promise<ModerationResult> {
      const response = await client.request({ method: 'POST', path: '/moderations', headers: jsonHeaders, body: JSON.stringify(call.body), signal: call.signal });
      return { body: await readOkJson(response) };
    }

    const { 'content-type': _json, ...mediaHeaders } = headers;
    return {
      chat,
      countTokens,
      compactResponses,
      embeddings,
      moderations,
      ...openaiMediaCalls({ client, http: ctx.http, headers: mediaHeaders }),
      // Used when the provider says `batches: 'native'` (many compatible servers lack the API).
      batches: openaiBatchCalls({ client, headers: mediaHeaders }),
      // For models listed with `type: 'video_generation'` (upstreams serving `/v1/videos`).
      jobs: openaiVideos({ client, headers: mediaHeaders }),
      close: () => client.close(),
    };
  },
});
