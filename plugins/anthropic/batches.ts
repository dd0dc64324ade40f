import { readBody, UpstreamHttpError, type BatchCapability, type HttpClient, type NativeBatchPhase, type NativeBatchResult } from 'gateway/plugin-kit';

/** What the batch calls need from the plugin's setup. */
export interface AnthropicBatchContext {
  client: HttpClient;
  /** The upstream origin and path prefix (no /v1). */
  base: string;
  /** Auth, version and beta headers, with the JSON content type. */
  headers: Record<string, string>;
}

/** Anthropic's `processing_status` onto the plugin kit's phases. */
const PHASES: Record<string, NativeBatchPhase> = { in_progress: 'running', canceling: 'cancelling', ended: 'ended' };

/** The HTTP status each Anthropic error type stands for (batch results carry no status). */
const STATUS_OF: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

async function readJson(response: Awaited<ReturnType<HttpClient['request']>>): Promise<Record<string, unknown>> {
  const text = (await readBody(response.body)).toString('utf8');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  if (response.status < 200 || response.status >= 300) throw new UpstreamHttpError(response.status, parsed, response.headers);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UpstreamHttpError(502, { error: { message: 'the provider returned a body that is not a JSON object' } });
  return parsed as Record<string, unknown>;
}

/** One line of a results file as a result. */
function resultOf(line: Record<string, unknown>): NativeBatchResult | undefined {
  const customId = typeof line.custom_id === 'string' ? line.custom_id : undefined;
  const result = line.result as { type?: unknown; message?: unknown; error?: unknown } | undefined;
  if (!customId || !result) return undefined;
  if (result.type === 'succeeded' && result.message && typeof result.message === 'object') return { customId, type: 'succeeded', body: result.message as Record<string, unknown> };
  if (result.type === 'canceled' || result.type === 'expired') return { customId, type: result.type };
  const error = result.error as { error?: { type?: unknown } } | undefined;
  const kind = typeof error?.error?.type === 'string' ? error.error.type : 'api_error';
  return { customId, type: 'errored', status: STATUS_OF[kind] ?? 500, body: error };
}

/**
 * Anthropic's Message Batches API: `POST /v1/messages/batches` with `requests[{custom_id,
 * params}]`, polled on `processing_status`, results read from `results_url` (JSONL with
 * succeeded / errored / canceled / expired results), cancelled with `POST …/cancel`.
 */
export function anthropicBatches(ctx: AnthropicBatchContext): BatchCapability {
  const path = (id: string, rest = '') => `/v1/messages/batches/${encodeURIComponent(id)}${rest}`;
  const origin = new URL(ctx.base).origin;

  /** The results path: `results_url` when it is on the configured upstream (the key never goes elsewhere), else the documented one. */
  function resultsPath(id: string, url: unknown): string {
    if (typeof url === 'string') {
      try {
        const target = new URL(url);
        if (target.origin === origin) return target.pathname + target.search;
      } catch {
        // not a URL: use the documented path
      }
    }
    return path(id, '/results');
  }

  return {
    formats: ['messages'],
    async submit(call) {
      const body = JSON.stringify({ requests: call.requests.map((r) => ({ custom_id: r.customId, params: r.body })) });
      const created = await readJson(await ctx.client.request({ method: 'POST', path: '/v1/messages/batches', headers: ctx.headers, body, signal: call.signal }));
      return { id: String(created.id), state: {} };
    },
    async poll(ref, signal) {
      const batch = await readJson(await ctx.client.request({ method: 'GET', path: path(ref.id), headers: ctx.headers, signal }));
      const counts = (batch.request_counts ?? {}) as Record<string, number | undefined>;
      const n = (k: string) => (typeof counts[k] === 'number' ? counts[k] : 0);
      return {
        phase: PHASES[String(batch.processing_status)] ?? 'running',
        counts: {
          total: n('processing') + n('succeeded') + n('errored') + n('canceled') + n('expired'),
          succeeded: n('succeeded'),
          failed: n('errored') + n('canceled') + n('expired'),
        },
        state: { results_url: typeof batch.results_url === 'string' ? batch.results_url : null },
      };
    },
    async *results(ref, signal) {
      const response = await ctx.client.request({ method: 'GET', path: resultsPath(ref.id, ref.state.results_url), headers: ctx.headers, signal });
      const bytes = await readBody(response.body);
      if (response.status < 200 || response.status >= 300) throw new UpstreamHttpError(response.status, bytes.toString('utf8'), response.headers);
      for (const text of bytes.toString('utf8').split('\n')) {
        if (text.trim() === '') continue;
        let line: unknown;
        try {
          line = JSON.parse(text);
        } catch {
          continue; // a torn line: its request gets no result (reported as not run)
        }
        const result = line && typeof line === 'object' ? resultOf(line as Record<string, unknown>) : undefined;
        if (result) yield result;
      }
    },
    async cancel(ref, signal) {
      await readJson(await ctx.client.request({ method: 'POST', path: path(ref.id, '/cancel'), headers: ctx.headers, signal }));
    },
  };
}
