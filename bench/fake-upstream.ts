/**
 * A fast fake OpenAI Chat Completions upstream for the benchmark. Every response is a
 * precomputed buffer, so the upstream costs almost nothing next to what it is measuring.
 *
 * Run alone: `node --import tsx bench/fake-upstream.ts [--port 0] [--chunk-gap-ms 0]`.
 * Prints `fake-upstream listening on http://127.0.0.1:<port>` when ready.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export const UPSTREAM_MODEL = 'bench-model';

/** How many content chunks a streamed answer has (plus role, finish, usage and [DONE]). */
export const CONTENT_CHUNKS = 20;

const ID = 'chatcmpl-bench0000000000000000000000';
const CREATED = 1_735_689_600;
const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', ' and'];
const USAGE = {
  prompt_tokens: 42,
  completion_tokens: CONTENT_CHUNKS,
  total_tokens: 42 + CONTENT_CHUNKS,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

function contentWords(): string[] {
  return Array.from({ length: CONTENT_CHUNKS }, (_, i) => WORDS[i % WORDS.length]);
}

function chunk(delta: Record<string, unknown>, finish: string | null): Record<string, unknown> {
  return {
    id: ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: UPSTREAM_MODEL,
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
}

const sse = (data: unknown): Buffer => Buffer.from(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

/** The SSE events of one streamed answer, each its own buffer (written one at a time, like a real upstream). */
export function buildStreamEvents(includeUsage: boolean): Buffer[] {
  const events: Buffer[] = [sse(chunk({ role: 'assistant', content: '', refusal: null }, null))];
  for (const word of contentWords()) events.push(sse(chunk({ content: word }, null)));
  events.push(sse(chunk({}, 'stop')));
  if (includeUsage) events.push(sse({ ...chunk({}, null), choices: [], usage: USAGE }));
  events.push(sse('[DONE]'));
  return events;
}

/** The non-streamed answer. */
export function buildCompletion(): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: ID,
      object: 'chat.completion',
      created: CREATED,
      model: UPSTREAM_MODEL,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: contentWords().join(''), refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: USAGE,
      service_tier: 'default',
      system_fingerprint: 'fp_bench',
    }),
  );
}

const STREAM_RE = /"stream"\s*:\s*true/;
const USAGE_RE = /"include_usage"\s*:\s*true/;
const NOT_FOUND = Buffer.from(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }));

export interface FakeUpstreamOptions {
  /** 0: each event on its own event-loop turn (setImmediate); > 0: that many ms between events. */
  chunkGapMs?: number;
  /** A stream's events all at once, in one write (a fast model, a cache hit). */
  burst?: boolean;
}

/** Creates the fake upstream server (not yet listening). */
export function createFakeUpstream(options: FakeUpstreamOptions = {}): http.Server {
  const completion = buildCompletion();
  const withUsage = buildStreamEvents(true);
  const withoutUsage = buildStreamEvents(false);
  const gap = options.chunkGapMs ?? 0;
  const next = gap > 0 ? (fn: () => void) => setTimeout(fn, gap) : (fn: () => void) => setImmediate(fn);

  const bursts = new Map<Buffer[], Buffer>([withUsage, withoutUsage].map((events) => [events, Buffer.concat(events)]));
  const writeEvents = (res: http.ServerResponse, events: Buffer[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    if (options.burst) {
      res.end(bursts.get(events));
      return;
    }
    let i = 0;
    const step = () => {
      if (res.destroyed) return;
      if (i === events.length - 1) {
        res.end(events[i]);
        return;
      }
      res.write(events[i++]);
      next(step);
    };
    step();
  };

  return http.createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': NOT_FOUND.length }).end(NOT_FOUND);
      return;
    }
    // Sniff the two flags on the raw text: parsing the JSON would make the reference slower than it needs to be.
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (body += part));
    req.on('end', () => {
      if (!STREAM_RE.test(body)) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length }).end(completion);
        return;
      }
      writeEvents(res, USAGE_RE.test(body) ? withUsage : withoutUsage);
    });
  });
}

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const server = createFakeUpstream({ chunkGapMs: Number(argValue('--chunk-gap-ms', '0')), burst: process.argv.includes('--burst') });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(argValue('--port', '0')), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(`fake-upstream listening on http://127.0.0.1:${port}`);
  });
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
