import { readOk, readOkJson } from './read-upstream.ts';
import type { BatchCapability, HttpClient, NativeBatchPhase, NativeBatchResult, NativeBatchStatus } from './types.ts';

/** What the batch calls need from the plugin's setup. */
export interface OpenAIBatchContext {
  client: HttpClient;
  /** Auth and organization headers, without a content type. */
  headers: Record<string, string>;
  /**
   * Where an endpoint of the files and batches API is (`/files`, `/batches/{id}/cancel`), with
   * its query: as given by default (a base URL that ends in `/v1`); Azure's is
   * `/openai/v1/files` or `/openai/files?api-version=…`.
   */
  path?: (endpoint: string, query?: Record<string, string>) => string;
}

/** `endpoint` with `query` (OpenAI's own layout). */
function asGiven(endpoint: string, query?: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return search ? `${endpoint}?${search}` : endpoint;
}

/** The upstream batch endpoint of each wire format the plugin's batches take. */
const ENDPOINTS = { chat: '/v1/chat/completions', responses: '/v1/responses' } as const;

/** OpenAI's batch states onto the plugin kit's phases. */
const PHASES: Record<string, NativeBatchPhase> = {
  validating: 'pending',
  in_progress: 'running',
  finalizing: 'running',
  cancelling: 'cancelling',
  completed: 'ended',
  expired: 'ended',
  cancelled: 'ended',
  // Azure's docs spell it both ways.
  canceled: 'ended',
  failed: 'failed',
};

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * OpenAI's Batch API (the `openai` and `azure` plugins): the requests go up as a JSONL file
 * (`POST /files`, purpose `batch`), a batch is created on it (`POST /batches`), polled
 * (`GET /batches/{id}`), its output and error files read (`GET /files/{id}/content`), and
 * cancelled (`POST /batches/{id}/cancel`).
 */
export function openaiBatchCalls(ctx: OpenAIBatchContext): BatchCapability {
  const json = { ...ctx.headers, 'content-type': 'application/json', accept: 'application/json' };
  const path = ctx.path ?? asGiven;

  async function fileLines(fileId: string, signal: AbortSignal): Promise<Array<Record<string, unknown>>> {
    const response = await ctx.client.request({ method: 'GET', path: path(`/files/${encodeURIComponent(fileId)}/content`), headers: ctx.headers, signal });
    const { bytes } = await readOk(response);
    const out: Array<Record<string, unknown>> = [];
    for (const text of bytes.toString('utf8').split('\n')) {
      if (text.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(text);
        if (value && typeof value === 'object' && !Array.isArray(value)) out.push(value as Record<string, unknown>);
      } catch {
        // a torn line: its request gets no result (reported as not run)
      }
    }
    return out;
  }

  /** One output or error file line as a result. */
  function resultOf(line: Record<string, unknown>): NativeBatchResult | undefined {
    const customId = str(line.custom_id);
    if (!customId) return undefined;
    const response = line.response as { status_code?: unknown; body?: unknown } | null | undefined;
    const error = line.error as { code?: unknown; message?: unknown } | null | undefined;
    if (error && error.code === 'batch_expired') return { customId, type: 'expired' };
    if (error && error.code === 'batch_cancelled') return { customId, type: 'canceled' };
    const status = typeof response?.status_code === 'number' ? response.status_code : undefined;
    if (status !== undefined && status >= 200 && status < 300 && response?.body && typeof response.body === 'object') {
      return { customId, type: 'succeeded', body: response.body as Record<string, unknown> };
    }
    if (status !== undefined) return { customId, type: 'errored', status, body: response?.body };
    return { customId, type: 'errored', status: 500, body: { error: { message: str(error?.message) ?? 'the request failed', code: str(error?.code) ?? null } } };
  }

  return {
    formats: ['chat', 'responses'],
    async submit(call) {
      const endpoint = ENDPOINTS[call.format as keyof typeof ENDPOINTS];
      const jsonl = call.requests.map((r) => JSON.stringify({ custom_id: r.customId, method: 'POST', url: endpoint, body: r.body })).join('\n') + '\n';
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([jsonl], { type: 'application/jsonl' }), `${call.batchId}.jsonl`);
      const uploaded = await readOkJson(await ctx.client.request({ method: 'POST', path: path('/files'), headers: { ...ctx.headers, accept: 'application/json' }, body: form, signal: call.signal }));
      const inputFileId = String(uploaded.id);
      const created = await readOkJson(
        await ctx.client.request({
          method: 'POST',
          path: path('/batches'),
          headers: json,
          body: JSON.stringify({ input_file_id: inputFileId, endpoint, completion_window: '24h', metadata: { gateway_batch_id: call.batchId } }),
          signal: call.signal,
        }),
      );
      return { id: String(created.id), state: { input_file_id: inputFileId } };
    },
    async poll(ref, signal) {
      const batch = await readOkJson(await ctx.client.request({ method: 'GET', path: path(`/batches/${encodeURIComponent(ref.id)}`), headers: json, signal }));
      const phase = PHASES[String(batch.status)] ?? 'running';
      const counts = batch.request_counts as { total?: number; completed?: number; failed?: number } | undefined;
      const status: NativeBatchStatus = {
        phase,
        state: { ...ref.state, output_file_id: str(batch.output_file_id) ?? null, error_file_id: str(batch.error_file_id) ?? null },
      };
      if (counts) status.counts = { total: counts.total ?? 0, succeeded: counts.completed ?? 0, failed: counts.failed ?? 0 };
      if (phase === 'failed') {
        const first = ((batch.errors as { data?: Array<{ code?: string; message?: string }> } | null)?.data ?? [])[0];
        status.error = { code: first?.code ?? 'provider_error', message: first?.message ?? 'The provider refused the batch.' };
      }
      return status;
    },
    async *results(ref, signal) {
      for (const key of ['output_file_id', 'error_file_id']) {
        const fileId = str(ref.state[key]);
        if (!fileId) continue;
        for (const line of await fileLines(fileId, signal)) {
          const result = resultOf(line);
          if (result) yield result;
        }
      }
    },
    /** The batch made for `batchId` (its `metadata.gateway_batch_id`) among the upstream's newest 100. */
    async find(batchId, signal) {
      const page = await readOkJson(await ctx.client.request({ method: 'GET', path: path('/batches', { limit: '100' }), headers: json, signal }));
      const data = Array.isArray(page.data) ? (page.data as Array<Record<string, unknown>>) : [];
      const found = data.find((b) => (b.metadata as Record<string, unknown> | null | undefined)?.gateway_batch_id === batchId);
      return found ? { id: String(found.id), state: { input_file_id: str(found.input_file_id) ?? null } } : undefined;
    },
    async cancel(ref, signal) {
      await readOkJson(await ctx.client.request({ method: 'POST', path: path(`/batches/${encodeURIComponent(ref.id)}/cancel`), headers: json, signal }));
    },
  };
}
