import { anthropicBatches } from './batches.ts';
import { definePlugin, GatewayError, type ChatCall, type ModelSpec, type UpstreamResponse } from 'gateway/plugin-kit';

/** Options of the `anthropic` plugin beyond the common provider keys. */
export interface AnthropicOptions {
  /** The `anthropic-version` header sent upstream. */
  version: string;
  /** `anthropic-beta` flags always sent (client flags are added). */
  beta?: string[];
}

function parseOptions(input: unknown): AnthropicOptions {
  const o = (input ?? {}) as Record<string, unknown>;
  if (o.version !== undefined && typeof o.version !== 'string') throw new Error('version must be a string');
  if (o.beta !== undefined && (!Array.isArray(o.beta) || o.beta.some((b) => typeof b !== 'string'))) throw new Error('beta must be a list of strings');
  return { version: (o.version as string | undefined) ?? '2023-06-01', beta: o.beta as string[] | undefined };
}

const CAPS: ModelSpec['capabilities'] = ['streaming', 'function_calling', 'thinking', 'vision', 'documents'];

/** Anthropic's Messages API. `baseURL` is the host without /v1, as in the Anthropic SDK. */
export default definePlugin<AnthropicOptions>({
  name: 'anthropic',
  formats: ['messages'],
  // Anthropic documents 32 MB for a Messages request (a larger one is Cloudflare's 413 request_too_large, after the upload); read as MiB, so nothing it takes is refused.
  maxRequestBytes: 32 * 1024 * 1024,
  // Served when the config lists no models. Prices (cache reads and writes too) and context
  // windows come from the bundled catalog; models.dev's snapshot predates these ids, so their
  // capabilities and output caps are stated here.
  models: [
    { id: 'claude-sonnet-4-5', type: 'chat', capabilities: CAPS, maxOutputTokens: 64_000 },
    { id: 'claude-haiku-4-5', type: 'chat', capabilities: CAPS, maxOutputTokens: 64_000 },
    { id: 'claude-opus-4-1', type: 'chat', capabilities: CAPS, maxOutputTokens: 32_000 },
  ],
  catalog: { provider: 'anthropic' },
  options: { parse: parseOptions, keys: ['version', 'beta'] },
  setup(ctx) {
    const base = (ctx.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '').replace(/\/v1$/, '');
    const client = ctx.http.client(base);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ctx.options.version, ...ctx.headers };
    if (ctx.apiKey) headers['x-api-key'] = ctx.apiKey;
    // A proxy in front may hold the key; Anthropic itself refuses a call without one.
    const keyed = Object.keys(headers).some((h) => /^(x-api-key|authorization)$/i.test(h));
    if (!keyed && new URL(base).hostname === 'api.anthropic.com') ctx.log.warn(`provider '${ctx.id}': no apiKey (is ANTHROPIC_API_KEY set?); Anthropic will refuse its calls`);

    function betaHeader(call: ChatCall): Record<string, string> {
      const beta = [...(ctx.options.beta ?? []), ...(call.headers['anthropic-beta'] ? call.headers['anthropic-beta'].split(',') : [])]
        .map((b) => b.trim())
        .filter(Boolean);
      return beta.length ? { 'anthropic-beta': [...new Set(beta)].join(',') } : {};
    }

    // The host calls it only with Messages, the one format the plugin declares.
    async function chat(call: ChatCall): Promise<UpstreamResponse> {
      return client.request({
        method: 'POST',
        path: '/v1/messages',
        headers: { ...headers, ...betaHeader(call), accept: call.stream ? 'text/event-stream' : 'application/json' },
        body: call.rawBody,
        // Not `signal: call.signal`: the call's AbortSignal is then never made (a few µs per call).
        abortOn: call,
      });
    }

    const batchHeaders = { ...headers, ...(ctx.options.beta?.length ? { 'anthropic-beta': ctx.options.beta.join(',') } : {}), accept: 'application/json' };
    // Used when the provider says `batches: 'native'`.
    async function countTokens(call: ChatCall): Promise<UpstreamResponse> {
      if (call.format !== 'messages') throw new GatewayError('bad_request', `The anthropic plugin counts only Messages, not ${call.format}.`);
      return client.request({ method: 'POST', path: '/v1/messages/count_tokens', headers: { ...headers, ...betaHeader(call), accept: 'application/json' }, body: call.rawBody, abortOn: call });
    }

    return { chat, countTokens, batches: anthropicBatches({ client, base, headers: batchHeaders }), close: () => client.close() };
  },
});
