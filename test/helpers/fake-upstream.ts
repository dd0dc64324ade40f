import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake upstream received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown> | undefined;
}

/** How the fake answers one request: a status and body, SSE frames, or a fault. */
export type FakeReply =
  | { status?: number; headers?: Record<string, string>; json: unknown }
  | { status?: number; headers?: Record<string, string>; text: string }
  | {
      status?: number;
      headers?: Record<string, string>;
      /** Raw SSE text pieces, written in order (split frames on purpose to test parsers). */
      sse: string[];
      /** Delay between pieces (ms). */
      delayMs?: number;
      /** Pieces written once this resolves, after `sse`: a stream held part-way until the test lets it go on. */
      resume?: Promise<string[]>;
      /** Stop after the pieces without ending the response (a stall). */
      stall?: boolean;
      /** Destroy the socket after the pieces (a cut stream). */
      reset?: boolean;
    }
  | { fault: 'reset' | 'hang' }
  | { delayMs: number; then: FakeReply };

export type FakeHandler = (request: ReceivedRequest, index: number) => FakeReply | Promise<FakeReply>;

/** A wire-exact fake upstream on 127.0.0.1: scripted replies, a record of what it received. */
export interface FakeUpstream {
  url: string;
  requests: ReceivedRequest[];
  /** Sockets closed by the peer, with the time they closed (for disconnect tests). */
  closedAt: number[];
  setHandler(handler: FakeHandler): void;
  close(): Promise<void>;
}

/** SSE text for `data:` payloads (Chat style), each JSON-encoded, then `[DONE]`. */
export function chatSse(chunks: unknown[], done = true): string[] {
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), ...(done ? ['data: [DONE]\n\n'] : [])];
}

/** SSE text for named events (Messages and Responses style). */
export function namedSse(events: Array<{ type: string; [k: string]: unknown }>): string[] {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
}

/** An Anthropic upstream that streams `message_start` for `model`, then Anthropic's `overloaded_error` event: a stream that fails part-way. */
export function startOverloadedMessagesFake(model = 'claude-x'): Promise<FakeUpstream> {
  return startFakeUpstream(() => ({
    headers: { 'content-type': 'text/event-stream' },
    sse: namedSse([
      { type: 'message_start', message: { id: 'msg_f', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]),
  }));
}

/** Splits SSE pieces at odd byte offsets so parsers must reassemble frames. */
export function splitPieces(pieces: string[], every = 7): string[] {
  const all = pieces.join('');
  const out: string[] = [];
  for (let i = 0; i < all.length; i += every) out.push(all.slice(i, i + every));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startFakeUpstream(handler: FakeHandler = () => ({ status: 404, json: { error: { message: 'no handler' } } })): Promise<FakeUpstream> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  const closedAt: number[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const watched = new WeakSet<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json };
    requests.push(received);
    if (!watched.has(req.socket)) {
      // once per socket: keep-alive sockets serve many requests
      watched.add(req.socket);
      req.socket.once('close', () => closedAt.push(Date.now()));
    }
    let reply = await current(received, requests.length - 1);
    while ('then' in reply) {
      await sleep(reply.delayMs);
      reply = reply.then;
    }
    if ('fault' in reply) {
      if (reply.fault === 'reset') req.socket.destroy();
      return; // hang: never answer
    }
    const status = reply.status ?? 200;
    if ('json' in reply) {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.json));
      return;
    }
    if ('text' in reply) {
      res.writeHead(status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.text);
      return;
    }
    res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    const delayMs = reply.delayMs;
    const pieces = async (list: string[]) => {
      for (const piece of list) {
        if (res.destroyed) return;
        res.write(piece);
        if (delayMs) await sleep(delayMs);
      }
    };
    await pieces(reply.sse);
    if (reply.resume) await pieces(await reply.resume);
    if (res.destroyed) return;
    if (reply.reset) req.socket.destroy();
    else if (!reply.stall) res.end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    closedAt,
    setHandler: (h) => (current = h),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
