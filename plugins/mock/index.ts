import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { definePlugin, type ChatCall, type ModelSpec, type UpstreamResponse } from 'gateway/plugin-kit';
import { planReply } from './chat-reply.ts';
import { checkChatRequest } from './check-chat-request.ts';
import { toChatChunks, toChatCompletion } from './chat-wire.ts';
import { EMBEDDING_MODELS, mockEmbeddings } from './embeddings.ts';
import { JOB_MODELS, mockJobs } from './jobs.ts';
import { MEDIA_MODELS, mediaCalls } from './media.ts';
import { MODERATION_MODELS, mockModerations } from './moderations.ts';

/** Options of the `mock` plugin: latency and failure injection for testing fallbacks. */
export interface MockOptions {
  /** Delay before the response starts (ms). */
  latencyMs?: number;
  /** Delay between stream chunks (ms). */
  chunkDelayMs?: number;
  /** Fail the first N calls with `failStatus`. */
  failFirst?: number;
  /** Status of injected failures (default 500). */
  failStatus?: number;
  /** How long a video, music or 3D job takes (ms, default 2000). */
  jobDelayMs?: number;
  /** Fail the first N jobs (video, music, 3D) at the end of their delay. */
  jobFailFirst?: number;
}

function parseOptions(input: unknown): MockOptions {
  const o = (input ?? {}) as Record<string, unknown>;
  const num = (key: string): number | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${key} must be a non-negative number`);
    return v;
  };
  return { latencyMs: num('latencyMs'), chunkDelayMs: num('chunkDelayMs'), failFirst: num('failFirst'), failStatus: num('failStatus'), jobDelayMs: num('jobDelayMs'), jobFailFirst: num('jobFailFirst') };
}

const CHAT_CAPS = ['streaming', 'function_calling', 'thinking', 'vision', 'documents', 'json_mode'] as const;

const MODELS: ModelSpec[] = [
  { id: 'echo', type: 'chat', capabilities: [...CHAT_CAPS], pricing: { input: 0.1, output: 0.2 }, contextWindow: 128_000, displayName: 'Mock Echo' },
  ...MEDIA_MODELS,
  ...JOB_MODELS,
  ...EMBEDDING_MODELS,
  ...MODERATION_MODELS,
];

/** Why the list at `key` cannot be read (not an array of objects), as OpenAI words it; undefined when it can (or, `optional`, is absent). */
function unreadableList(body: Record<string, unknown>, key: string, optional = false): { message: string; param: string } | undefined {
  const list = body[key];
  if (optional && (list === undefined || list === null)) return undefined;
  if (!Array.isArray(list)) return { message: `Invalid type for '${key}': expected an array.`, param: key };
  if (!optional && list.length === 0) return { message: `Invalid '${key}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, param: key };
  const index = list.findIndex((item) => typeof item !== 'object' || item === null || Array.isArray(item));
  return index === -1 ? undefined : { message: `Invalid type for '${key}[${index}]': expected an object.`, param: `${key}[${index}]` };
}

function jsonResponse(status: number, body: unknown, extraHeaders: Record<string, string> = {}): UpstreamResponse {
  const bytes = Buffer.from(JSON.stringify(body));
  return { status, headers: { 'content-type': 'application/json', ...extraHeaders }, body: (async function* () { yield bytes; })() };
}

/** The built-in offline provider: deterministic chat, tools and reasoning on the Chat Completions wire. */
export default definePlugin<MockOptions>({
  name: 'mock',
  formats: ['chat'],
  models: MODELS,
  options: { parse: parseOptions, keys: ['latencyMs', 'chunkDelayMs', 'failFirst', 'failStatus', 'jobDelayMs', 'jobFailFirst'] },
  setup(ctx) {
    let calls = 0;
    const { latencyMs = 0, chunkDelayMs = 0, failFirst = 0, failStatus = 500 } = ctx.options;

    async function chat(call: ChatCall): Promise<UpstreamResponse> {
      calls += 1;
      if (latencyMs > 0) await sleep(latencyMs, undefined, { signal: call.signal });
      if (calls <= failFirst) {
        const headers: Record<string, string> = failStatus === 429 ? { 'retry-after': '1' } : {};
        return jsonResponse(failStatus, { error: { message: `mock: injected failure ${calls}/${failFirst}`, type: 'server_error', param: null, code: null } }, headers);
      }
      const body = call.body;
      // OpenAI's answer to messages it cannot read (or none): a 400, never a crash (a 502 to the client).
      const unreadable = unreadableList(body, 'messages') ?? unreadableList(body, 'tools', true);
      if (unreadable) return jsonResponse(400, { error: { message: unreadable.message, type: 'invalid_request_error', param: unreadable.param, code: null } });
      // What production would refuse (a temperature past 2, a role OpenAI does not know) is refused offline too.
      const refusal = checkChatRequest(body);
      if (refusal) return jsonResponse(400, { error: { message: refusal.message, type: 'invalid_request_error', param: refusal.param, code: refusal.code } });
      const reply = planReply(body);
      const n = typeof body.n === 'number' ? body.n : 1;
      const created = Math.floor(Date.now() / 1000);
      const id = `chatcmpl-${createHash('sha256').update(JSON.stringify(body.messages ?? '')).digest('hex').slice(0, 24)}`;
      if (!call.stream) return jsonResponse(200, toChatCompletion(reply, id, call.model, created, n));
      const includeUsage = Boolean((body.stream_options as Record<string, unknown> | undefined)?.include_usage);
      const chunks = toChatChunks(reply, id, call.model, created, includeUsage, n);
      const signal = call.signal;
      async function* stream(): AsyncGenerator<Uint8Array> {
        for (const chunk of chunks) {
          if (signal.aborted) return;
          if (chunkDelayMs > 0) await sleep(chunkDelayMs, undefined, { signal }).catch(() => undefined);
          yield Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
        }
        yield Buffer.from('data: [DONE]\n\n');
      }
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: stream() };
    }

    return { chat, embeddings: mockEmbeddings, moderations: mockModerations, ...mediaCalls(), jobs: mockJobs(ctx.options) };
  },
});
