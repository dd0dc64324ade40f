/**
 * Fakes of the upstream batch APIs, in the shapes the real ones answer with: OpenAI's files
 * and batches (`/v1/files`, `/v1/batches`, output and error files) and Anthropic's Message
 * Batches (`/v1/messages/batches`, `results_url` JSONL). Each also answers live calls
 * (`/v1/chat/completions`, `/v1/messages`) with the same reply a batch line gets, so a test
 * can compare what a batch is billed with what the same request costs live.
 *
 * A batch moves on as it is polled: `pollsToEnd` GETs after it was created it has ended
 * (unless `hold` is set, until `release()`). A request whose text contains `FAIL` ends errored
 * (400 invalid_request_error). A cancel moves the batch to cancelling, then cancelled/ended on
 * the next poll: the first half of its requests finished, the rest not run.
 */
import type { FakeHandler, FakeReply, ReceivedRequest } from './fake-upstream.ts';

type Json = Record<string, unknown>;

export interface FakeBatchOptions {
  /** Polls of a batch before it ends (default 2). */
  pollsToEnd?: number;
  /** Keep every batch running until `release()`. */
  hold?: boolean;
  /** The body of a succeeded line (default: a Chat Completions reply, `chatCompletionFor`). */
  answer?: (body: Json) => Json;
}

export interface FakeBatchApi {
  handler: FakeHandler;
  /** Upstream batches by id, as the fake keeps them. */
  batches: Map<string, FakeBatch>;
  /** Lets held batches end. */
  release(): void;
}

export interface FakeBatch {
  id: string;
  /** The requests as received: custom_id and the body / params. */
  requests: Array<{ customId: string; body: Json }>;
  polls: number;
  cancelRequested: boolean;
  ended: boolean;
}

let seq = 0;
const nextId = (prefix: string) => `${prefix}${(++seq).toString(36).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;

/** All the text of a Chat or Messages request (what FAIL is looked for in, and what is echoed). */
function textOf(body: Json): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k === 'content' || k === 'text' || k === 'messages' || k === 'system') walk(x);
  };
  walk(body.messages);
  walk(body.system);
  return parts.join(' ');
}

/** Deterministic usage for a request: the same request costs the same, live or batched. */
function usageOf(body: Json): { input: number; output: number } {
  const text = textOf(body);
  return { input: 10 + text.length, output: 5 + (text.length % 7) };
}

/** A request that offers tools and says CALL is answered with a call of its first tool (the name as the request spelled it). */
function callsFirstTool(body: Json): Json | undefined {
  const tool = Array.isArray(body.tools) ? (body.tools[0] as { function?: { name?: unknown } } | undefined) : undefined;
  if (!tool || !textOf(body).includes('CALL')) return undefined;
  const call = { id: `call_${nextId('')}`, type: 'function', function: { name: String(tool.function?.name), arguments: '{}' } };
  return { index: 0, message: { role: 'assistant', content: null, tool_calls: [call], refusal: null }, logprobs: null, finish_reason: 'tool_calls' };
}

/** A Chat Completions reply to `body`, as OpenAI sends it. */
export function chatCompletionFor(body: Json): Json {
  const u = usageOf(body);
  return {
    id: `chatcmpl-${nextId('')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: String(body.model),
    choices: [callsFirstTool(body) ?? { index: 0, message: { role: 'assistant', content: `echo: ${textOf(body)}`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output },
  };
}

/** A Messages reply to `body`, as Anthropic sends it. */
export function messageFor(body: Json): Json {
  const u = usageOf(body);
  return {
    id: `msg_${nextId('')}`,
    type: 'message',
    role: 'assistant',
    model: String(body.model),
    content: [{ type: 'text', text: `echo: ${textOf(body)}` }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: u.input, output_tokens: u.output },
  };
}

const fails = (body: Json) => textOf(body).includes('FAIL');

function openaiError(status: number, message: string, type = 'invalid_request_error'): FakeReply {
  return { status, json: { error: { message, type, param: null, code: null } } };
}

/** OpenAI's files and batches API (base path /v1), plus live /v1/chat/completions. */
export function openaiBatchApi(options: FakeBatchOptions = {}): FakeBatchApi {
  const pollsToEnd = options.pollsToEnd ?? 2;
  let held = options.hold ?? false;
  const answer = options.answer ?? chatCompletionFor;
  const files = new Map<string, { id: string; filename: string; purpose: string; content: string; created_at: number }>();
  const batches = new Map<string, FakeBatch & { object: Json }>();

  const fileObject = (f: { id: string; filename: string; purpose: string; content: string; created_at: number }) => ({
    id: f.id,
    object: 'file',
    bytes: Buffer.byteLength(f.content),
    created_at: f.created_at,
    expires_at: null,
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
    status_details: null,
  });
  const addFile = (filename: string, purpose: string, content: string) => {
    const f = { id: `file-${nextId('')}`, filename, purpose, content, created_at: Math.floor(Date.now() / 1000) };
    files.set(f.id, f);
    return f;
  };

  /** Ends a batch: output and error files from its requests (only the first `upTo` ran). */
  const end = (b: FakeBatch & { object: Json }, status: 'completed' | 'cancelled', upTo: number) => {
    const out: string[] = [];
    const err: string[] = [];
    b.requests.slice(0, upTo).forEach((r, i) => {
      const request_id = `req_up_${i}`;
      const id = `batch_req_${nextId('')}`;
      if (fails(r.body)) {
        err.push(JSON.stringify({ id, custom_id: r.customId, response: { status_code: 400, request_id, body: { error: { message: 'The prompt asked to FAIL.', type: 'invalid_request_error', param: null, code: null } } }, error: null }));
      } else out.push(JSON.stringify({ id, custom_id: r.customId, response: { status_code: 200, request_id, body: answer(r.body) }, error: null }));
    });
    const now = Math.floor(Date.now() / 1000);
    b.ended = true;
    Object.assign(b.object, {
      status,
      output_file_id: out.length ? addFile(`${b.id}_output.jsonl`, 'batch_output', out.map((l) => `${l}\n`).join('')).id : null,
      error_file_id: err.length ? addFile(`${b.id}_error.jsonl`, 'batch_output', err.map((l) => `${l}\n`).join('')).id : null,
      request_counts: { total: b.requests.length, completed: out.length, failed: err.length },
      finalizing_at: status === 'completed' ? now : null,
      completed_at: status === 'completed' ? now : null,
      cancelled_at: status === 'cancelled' ? now : null,
    });
  };

  const handler: FakeHandler = async (req: ReceivedRequest) => {
    if (req.headers.authorization !== 'Bearer sk-upstream-openai') return openaiError(401, 'Incorrect API key provided.', 'authentication_error');
    const url = new URL(req.path, 'http://x');
    const p = url.pathname;
    if (req.method === 'POST' && p === '/v1/chat/completions') return { json: chatCompletionFor(req.json ?? {}) };
    if (req.method === 'POST' && p === '/v1/files') {
      const form = await new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      const file = form.get('file');
      const purpose = form.get('purpose');
      if (!(file instanceof File) || typeof purpose !== 'string') return openaiError(400, "Missing 'file' or 'purpose'.");
      return { json: fileObject(addFile(file.name, purpose, await file.text())) };
    }
    let m = /^\/v1\/files\/([^/]+)\/content$/.exec(p);
    if (req.method === 'GET' && m) {
      const f = files.get(m[1]);
      return f ? { headers: { 'content-type': 'application/octet-stream' }, text: f.content } : openaiError(404, `No such File object: ${m[1]}`);
    }
    if (req.method === 'POST' && p === '/v1/batches') {
      const body = req.json ?? {};
      const input = files.get(String(body.input_file_id));
      if (!input || input.purpose !== 'batch') return openaiError(400, 'Invalid input_file_id.');
      if (body.endpoint !== '/v1/chat/completions' && body.endpoint !== '/v1/responses') return openaiError(400, 'Invalid endpoint.');
      if (body.completion_window !== '24h') return openaiError(400, 'Invalid completion_window.');
      const requests = input.content
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { custom_id: string; method: string; url: string; body: Json });
      for (const r of requests) if (r.method !== 'POST' || r.url !== body.endpoint || typeof r.custom_id !== 'string') return openaiError(400, 'Invalid input line.');
      const now = Math.floor(Date.now() / 1000);
      const id = `batch_${nextId('up')}`;
      const object: Json = {
        id,
        object: 'batch',
        endpoint: body.endpoint,
        errors: null,
        input_file_id: input.id,
        completion_window: '24h',
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: now,
        in_progress_at: null,
        expires_at: now + 86_400,
        finalizing_at: null,
        completed_at: null,
        failed_at: null,
        expired_at: null,
        cancelling_at: null,
        cancelled_at: null,
        request_counts: { total: requests.length, completed: 0, failed: 0 },
        metadata: body.metadata ?? null,
      };
      batches.set(id, { id, object, requests: requests.map((r) => ({ customId: r.custom_id, body: r.body })), polls: 0, cancelRequested: false, ended: false });
      return { json: object };
    }
    if (req.method === 'GET' && p === '/v1/batches') {
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
      const data = [...batches.values()].reverse().slice(0, limit).map((b) => b.object);
      return { json: { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: batches.size > limit } };
    }
    m = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(p);
    if (m) {
      const b = batches.get(m[1]);
      if (!b) return openaiError(404, `No batch found with id '${m[1]}'.`);
      if (req.method === 'POST' && m[2]) {
        if (b.ended) return openaiError(409, `Cannot cancel a batch with status '${String(b.object.status)}'.`);
        b.cancelRequested = true;
        Object.assign(b.object, { status: 'cancelling', cancelling_at: Math.floor(Date.now() / 1000) });
        return { json: b.object };
      }
      if (req.method === 'GET' && !m[2]) {
        b.polls += 1;
        if (!b.ended) {
          if (b.cancelRequested) end(b, 'cancelled', Math.floor(b.requests.length / 2));
          else if (b.polls >= pollsToEnd && !held) end(b, 'completed', b.requests.length);
          else {
            const half = Math.floor(b.requests.length / 2);
            Object.assign(b.object, { status: 'in_progress', in_progress_at: b.object.in_progress_at ?? Math.floor(Date.now() / 1000), request_counts: { total: b.requests.length, completed: b.polls > 1 ? half : 0, failed: 0 } });
          }
        }
        return { json: b.object };
      }
    }
    return openaiError(404, `Unknown path ${req.method} ${p}`);
  };
  return { handler, batches, release: () => (held = false) };
}

/**
 * Azure OpenAI's files and batches API: OpenAI's, at `/openai/v1/files` and `/openai/v1/batches`
 * (v1) or `/openai/files` and `/openai/batches` with a required `api-version` (the dated path),
 * authenticated by the `api-key` header; Azure's `{error: {code, message}}` for a wrong key or
 * path. Every line must name the same deployment (Azure's rule for a Global Batch file).
 */
export function azureBatchApi(options: FakeBatchOptions & { apiKey: string }): FakeBatchApi {
  const inner = openaiBatchApi(options);
  const azureError = (status: number, code: string, message: string): FakeReply => ({ status, json: { error: { code, message } } });
  const handler: FakeHandler = async (req: ReceivedRequest, index: number) => {
    const url = new URL(req.path, 'http://x');
    const v1 = /^\/openai\/v1(\/(?:files|batches)(?:\/.*)?)$/.exec(url.pathname);
    const dated = v1 ? null : /^\/openai(\/(?:files|batches)(?:\/.*)?)$/.exec(url.pathname);
    if (!v1 && !dated) return azureError(404, '404', 'Resource not found');
    if (dated && !url.searchParams.get('api-version')) return azureError(404, '404', 'Resource not found');
    if (req.headers['api-key'] !== options.apiKey) return azureError(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint.');
    url.searchParams.delete('api-version');
    const reply = await inner.handler({ ...req, path: `/v1${(v1 ?? dated)![1]}${url.search}`, headers: { ...req.headers, authorization: 'Bearer sk-upstream-openai' } }, index);
    const created = req.method === 'POST' && url.pathname.endsWith('/batches') ? [...inner.batches.values()].at(-1) : undefined;
    if (created && new Set(created.requests.map((r) => r.body.model)).size > 1) return azureError(400, 'invalid_request', 'Every line of a batch file must name the same deployment.');
    return reply;
  };
  return { ...inner, handler };
}

function anthropicError(status: number, type: string, message: string): FakeReply {
  return { status, json: { type: 'error', error: { type, message }, request_id: `req_${nextId('')}` } };
}

/** Anthropic's Message Batches API, plus live /v1/messages. */
export function anthropicBatchApi(options: FakeBatchOptions = {}): FakeBatchApi {
  const pollsToEnd = options.pollsToEnd ?? 2;
  let held = options.hold ?? false;
  const batches = new Map<string, FakeBatch & { object: Json; results: string }>();
  const iso = () => new Date().toISOString();

  const end = (b: FakeBatch & { object: Json; results: string }, url: string, upTo: number) => {
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    const lines = b.requests.map((r, i) => {
      let result: Json;
      if (i >= upTo) {
        result = { type: 'canceled' };
        counts.canceled += 1;
      } else if (fails(r.body)) {
        result = { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'The prompt asked to FAIL.' }, request_id: null } };
        counts.errored += 1;
      } else {
        result = { type: 'succeeded', message: messageFor(r.body) };
        counts.succeeded += 1;
      }
      return JSON.stringify({ custom_id: r.customId, result });
    });
    b.results = lines.map((l) => `${l}\n`).join('');
    b.ended = true;
    Object.assign(b.object, { processing_status: 'ended', ended_at: iso(), request_counts: counts, results_url: `${url}/v1/messages/batches/${b.id}/results` });
  };

  const handler: FakeHandler = (req: ReceivedRequest) => {
    if (req.headers['x-api-key'] !== 'sk-upstream-anthropic') return anthropicError(401, 'authentication_error', 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
    const p = new URL(req.path, 'http://x').pathname;
    const host = `http://${String(req.headers.host)}`;
    if (req.method === 'POST' && p === '/v1/messages') return { json: messageFor(req.json ?? {}) };
    if (req.method === 'POST' && p === '/v1/messages/batches') {
      const requests = (req.json?.requests ?? []) as Array<{ custom_id?: unknown; params?: Json }>;
      if (!Array.isArray(requests) || requests.length === 0) return anthropicError(400, 'invalid_request_error', 'requests: at least one request is required');
      const seen = new Set<string>();
      for (const r of requests) {
        if (typeof r.custom_id !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id)) return anthropicError(400, 'invalid_request_error', 'requests.custom_id: invalid');
        if (seen.has(r.custom_id)) return anthropicError(400, 'invalid_request_error', 'requests.custom_id: duplicate');
        seen.add(r.custom_id);
        const params = r.params;
        if (!params || typeof params.model !== 'string' || typeof params.max_tokens !== 'number' || !Array.isArray(params.messages)) {
          return anthropicError(400, 'invalid_request_error', 'requests.params: model, max_tokens and messages are required');
        }
        if (params.stream === true) return anthropicError(400, 'invalid_request_error', 'requests.params.stream: not allowed in batches');
      }
      const id = `msgbatch_${nextId('')}`;
      const object: Json = {
        id,
        type: 'message_batch',
        processing_status: 'in_progress',
        request_counts: { processing: requests.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
        ended_at: null,
        created_at: iso(),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        archived_at: null,
        cancel_initiated_at: null,
        results_url: null,
      };
      batches.set(id, { id, object, results: '', requests: requests.map((r) => ({ customId: r.custom_id as string, body: r.params! })), polls: 0, cancelRequested: false, ended: false });
      return { json: object };
    }
    const m = /^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/.exec(p);
    if (m) {
      const b = batches.get(m[1]);
      if (!b) return anthropicError(404, 'not_found_error', `message batch ${m[1]} not found`);
      if (req.method === 'POST' && m[2] === '/cancel') {
        if (!b.ended) {
          b.cancelRequested = true;
          Object.assign(b.object, { processing_status: 'canceling', cancel_initiated_at: iso() });
        }
        return { json: b.object };
      }
      if (req.method === 'GET' && m[2] === '/results') {
        if (!b.ended) return anthropicError(400, 'invalid_request_error', 'results are not available until processing ends');
        return { headers: { 'content-type': 'application/binary' }, text: b.results };
      }
      if (req.method === 'GET' && !m[2]) {
        b.polls += 1;
        if (!b.ended) {
          if (b.cancelRequested) end(b, host, Math.floor(b.requests.length / 2));
          else if (b.polls >= pollsToEnd && !held) end(b, host, b.requests.length);
        }
        return { json: b.object };
      }
    }
    return anthropicError(404, 'not_found_error', `Unknown path ${req.method} ${p}`);
  };
  return { handler, batches, release: () => (held = false) };
}
