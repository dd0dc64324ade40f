import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { H3Event } from 'h3';
import { buildErrorEnvelope, NOT_RETRIED_CODES, toGatewayError, withRetryHint, type GatewayError } from '../errors/index.ts';
import { awsExceptionOf, formatOfClient, getCodec, getFormat } from '../formats/index.ts';
import { modelListHint, withModelList } from '../providers/index.ts';
import type { WireFormat } from '../ir/index.ts';
import { SSE_CONTENT_TYPE, writeSse, type SseRecord } from '../sse/index.ts';
import type { RelayedStream, StreamTarget } from '../pipeline/index.ts';
import { isNoRoute, withRouteHint } from './hint-base-url.ts';
import { flushHead, nodeOf, putHeader, requestHeader, requestState, setResponseHeader, type NodePair } from './context.ts';

/**
 * The error body a route's clients read natively: the route's format on inference routes;
 * elsewhere (a shared route, an unknown path) the format whose SDKs the request comes from,
 * else the plain envelope.
 */
export function errorBody(error: GatewayError, event: H3Event, format?: WireFormat): Record<string, unknown> {
  const ids = requestState(event).ids;
  const wire = errorWire(event, format);
  // A client of an API with a model list of its own (Gemini's under /v1beta) is pointed at that one.
  const list = clientModelList(event.url.pathname, wire);
  if (list) error = isNoRoute(error) ? withRouteHint(error, modelListHint(list)) : withModelList(error, list);
  return wire ? getCodec(wire).encodeError(error, ids) : (buildErrorEnvelope(error, ids) as unknown as Record<string, unknown>);
}

/**
 * The model list a client of `wire` reads when the request is under that list's API version
 * (Gemini's `GET /v1beta/models` for a `/v1beta/…` path), so what a 404 points to is a route of
 * the client's own API; undefined where `GET /v1/models` is it (OpenAI's, Anthropic's, Google's v1).
 */
function clientModelList(pathname: string, wire: WireFormat | undefined): string | undefined {
  const path = wire ? getFormat(wire).models?.path : undefined;
  if (!path) return undefined;
  const version = path.slice(0, path.indexOf('/', 1) + 1);
  return version !== '' && pathname.startsWith(version) ? `GET ${path}` : undefined;
}

/** The format whose error shape a request's client reads (see errorBody), or undefined for the plain envelope. */
function errorWire(event: H3Event, format?: WireFormat): WireFormat | undefined {
  return format ?? formatOfClient(event.url.pathname, (name) => requestHeader(event, name), event.url.searchParams)?.id;
}

/** The HTTP status of that error body: the spec's, unless the client's API answers the kind with another (Gemini's 400 for a 422), or 200 for a refusal it streams. */
export function errorStatus(error: GatewayError, event: H3Event, format?: WireFormat): number {
  const wire = errorWire(event, format);
  if (streamedRefusal(error, event, wire)) return 200;
  return (wire && getCodec(wire).errorStatus?.(error)) || error.status;
}

/**
 * The records of a refusal the client's API reports inside a 200 stream (a Responses client's
 * context overflow, as OpenAI streams it), when the client asked for a stream; else undefined.
 */
function streamedRefusal(error: GatewayError, event: H3Event, wire: WireFormat | undefined): SseRecord[] | undefined {
  const state = requestState(event);
  const record = state.record;
  if (!wire || !record?.stream) return undefined;
  return getCodec(wire).encodeStreamedRefusal?.(error, state.ids, record.requestedModel);
}

/**
 * How long a connection whose request body was left unread may linger after the error answer
 * without its client sending much: long enough for a client still sending to read the answer
 * (instead of a reset), short enough that a slow body cannot keep its socket (docs/limits.md,
 * "Connections").
 */
export const LINGER_MS = 2000;
/**
 * A client that keeps sending at least this much per LINGER_MS keeps its lingering socket: a
 * real upload on a slow link (or to a busy gateway, which discards at its own pace) gets to read
 * the answer; a trickle does not.
 */
export const LINGER_MIN_BYTES = 128 * 1024;
/** The longest a connection lingers, however fast its client sends. */
export const LINGER_MAX_MS = 30_000;

/**
 * An error answered before the request's body was read whole (401 on a slow upload, 413 at the
 * value bound): the answer says `Connection: close`, so no client sends another request on it.
 * Node would then destroy the socket as soon as the answer is flushed, and a socket closed with
 * unread data resets the connection, which can cost a client still sending its body the answer
 * itself. So this socket lingers instead: its write side is ended, what still arrives is read
 * and discarded, and it is destroyed once a LINGER_MS passes in which less than
 * LINGER_MIN_BYTES arrived, or after LINGER_MAX_MS (or when the client closes) — a slow body
 * no longer keeps it for Node's 300 s requestTimeout. True when the connection will close.
 */
function closeAfterAnswer(event: H3Event): boolean {
  const node = nodeOf(event);
  // On HTTP/2 an answer ends its stream, never the connection.
  if (!node || node.req.complete || node.req.httpVersionMajor === 2) return false;
  const { req } = node;
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // Node's http server calls destroySoon() once an answer with `Connection: close` is out.
  socket.destroySoon = () => {
    req.resume();
    socket.end();
    const until = Date.now() + LINGER_MAX_MS;
    let read = socket.bytesRead;
    const timer = setInterval(() => {
      const now = socket.bytesRead;
      if (now - read < LINGER_MIN_BYTES || Date.now() >= until) socket.destroy();
      read = now;
    }, LINGER_MS);
    timer.unref();
    socket.once('close', () => clearInterval(timer));
  };
  return true;
}

/** Builds the error response for anything thrown by a handler. */
export function errorResponse(thrown: unknown, event: H3Event, format?: WireFormat, awsErrors = false): Response {
  // The headers set so far go on the Node response, which srvx merges with this one's.
  flushHead(event);
  const error = withRetryHint(toGatewayError(thrown));
  const headers = new Headers(event.res.headers);
  if (closeAfterAnswer(event)) headers.set('connection', 'close');
  headers.set('content-type', 'application/json');
  headers.set('x-request-id', requestState(event).ids.requestId);
  for (const [k, v] of Object.entries(error.headers ?? {})) headers.set(k, v);
  if (NOT_RETRIED_CODES.has(error.code) && !headers.has('x-should-retry')) headers.set('x-should-retry', 'false');
  if (error.retryAfter !== undefined && !headers.has('retry-after')) headers.set('retry-after', String(error.retryAfter));
  // Retry-After is whole seconds; the SDKs read this one first, so a 250 ms wait is not rounded up to 1 s.
  if (error.retryAfterMs !== undefined && !headers.has('retry-after-ms')) headers.set('retry-after-ms', String(error.retryAfterMs));
  // The client's format read once, for the body and its status.
  const wire = errorWire(event, format);
  const streamed = streamedRefusal(error, event, wire);
  if (streamed) {
    headers.set('content-type', SSE_CONTENT_TYPE);
    headers.set('cache-control', 'no-cache');
    return new Response(writeSse(streamed), { status: 200, headers });
  }
  const status = errorStatus(error, event, wire);
  const body = errorBody(error, event, wire);
  if (!awsErrors) return new Response(JSON.stringify(body), { status, headers });
  // The AWS SDKs name the error by this header and read its text from a top-level `message`; the format's own clients read the rest.
  headers.set('x-amzn-errortype', awsExceptionOf(status));
  return new Response(JSON.stringify({ ...body, message: error.message }), { status, headers });
}

/** A JSON response with the request id header. */
export function json(event: H3Event, body: unknown, status = 200): string {
  event.res.status = status;
  event.res.headers.set('content-type', 'application/json');
  return JSON.stringify(body);
}

/**
 * A body h3 and srvx hand the Node response to: srvx writes the status and the headers set
 * on the Node response, then calls `pipe`, and leaves the end to it (no second `end()`,
 * which costs Node an ERR_STREAM_ALREADY_FINISHED with a stack on every request).
 * `destroy` runs instead of `pipe` when the client left before the head went out.
 */
interface NodeBody {
  pipe(res: ServerResponse): void;
  destroy(): void;
}

/** A body written whole, with its end: one write for head and body. */
class WholeBody implements NodeBody {
  constructor(private readonly body: string | Buffer) {}

  pipe(res: ServerResponse): void {
    res.end(this.body);
  }

  destroy(): void {}
}

/**
 * A whole body (e.g. a JSON answer). Under Node the headers go on the Node response and the
 * body out with its end in one write; elsewhere the text is returned for h3 to send.
 */
export function sendBody(event: H3Event, status: number, headers: Record<string, string>, body: string | Buffer): unknown {
  event.res.status = status;
  const node = nodeOf(event);
  if (!node) {
    for (const name in headers) setResponseHeader(event, name, headers[name]);
    return typeof body === 'string' ? body : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  }
  writeHead(event, node, status, headers, String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
  return new WholeBody(body);
}

/**
 * The head of a Node response, written now (srvx then leaves it as it is): the headers kept in
 * the request's head, `headers` (a name already there replaced in place, as setHeader does) and
 * the content length, in one `res.writeHead(status, '', list)` — the status text srvx writes,
 * and none of Node's per-header bookkeeping. When the head was moved onto the Node response
 * already (or h3 holds headers of its own for the answer, or a header is refused), the headers
 * are set one by one as before and srvx writes the head.
 */
function writeHead(event: H3Event, node: NodePair, status: number, headers: Record<string, string>, contentLength?: string): void {
  const state = requestState(event);
  const head = state.head;
  if (head && !node.res.headersSent && !hasStagedHeaders(event)) {
    const before = head.length;
    for (const name in headers) putHeader(head, name, headers[name]);
    if (contentLength !== undefined) putHeader(head, 'content-length', contentLength);
    try {
      if (node.req.httpVersionMajor === 2) writeHttp2Head(node.res, status, head);
      else node.res.writeHead(status, '', head);
      state.head = undefined;
      return;
    } catch {
      // A header Node refuses: set one by one below, so the same call throws as it did.
      head.length = before;
    }
  }
  flushHead(event);
  for (const name in headers) node.res.setHeader(name, headers[name]);
  if (contentLength !== undefined) node.res.setHeader('content-length', contentLength);
}

/** Headers of one HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113, 8.2.2): node's compat layer drops them with a warning. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/** An HTTP/2 head (h2c): no status text, no connection-specific header. */
function writeHttp2Head(res: NodePair['res'], status: number, head: string[]): void {
  const kept: string[] = [];
  for (let i = 0; i < head.length; i += 2) if (!CONNECTION_HEADERS.has(head[i].toLowerCase())) kept.push(head[i], head[i + 1]);
  res.writeHead(status, kept);
}

/** h3's own response headers of an event (event.res.headers, made on first use), which srvx writes only when it writes the head. */
const STAGED_HEADERS = Symbol.for('h3.internal.event.res.headers');

function hasStagedHeaders(event: H3Event): boolean {
  return (event.res as unknown as Record<symbol, unknown>)[STAGED_HEADERS] !== undefined;
}

/**
 * How long after the rest of a stream has gone out the bytes its framing sends apart follow
 * (StreamTarget.end): long enough for a client waiting on the socket to have read the rest first
 * (gemini-cli on a busy machine), short beside a failed answer. Only a stream that sends such bytes
 * (a Gemini stream's bare error element) waits.
 */
const APART_MS = 50;

/** The Node response as a stream target; `hold` keeps the last records back so the end goes out in the same write. */
class NodeTarget implements StreamTarget {
  /** Records held back after `hold()`, to go out in one write with the end of the response. */
  private pending: Array<string | Uint8Array> | undefined;

  constructor(private readonly res: ServerResponse) {}

  write(chunk: string | Uint8Array): boolean {
    if (this.pending) {
      this.pending.push(chunk);
      return true;
    }
    return this.res.write(chunk);
  }

  end(chunk?: string | Uint8Array, apart?: string): void {
    const pending = this.pending;
    this.pending = undefined;
    if (pending && pending.length > 0) {
      if (chunk !== undefined && chunk.length > 0) pending.push(chunk);
      chunk = pending.length === 1 ? pending[0] : Buffer.concat(pending.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
    }
    if (apart !== undefined) this.endApart(chunk, apart);
    else if (chunk === undefined || chunk.length === 0) this.res.end();
    else this.res.end(chunk);
  }

  /**
   * `chunk`, then `apart` with the end in a write of its own once `chunk` is out and APART_MS
   * more have passed: a client's fetch joins the bytes that arrive before it reads again into one
   * chunk, so `apart` must come after the client has read what came before.
   */
  private endApart(chunk: string | Uint8Array | undefined, apart: string): void {
    const res = this.res;
    const later = () => {
      setTimeout(() => {
        if (!res.destroyed && !res.writableEnded) res.end(apart);
      }, APART_MS);
    };
    if (chunk === undefined || chunk.length === 0) later();
    else res.write(chunk, later);
  }

  onDrain(listener: () => void): void {
    this.res.once('drain', listener);
  }

  abort(): void {
    this.pending = undefined;
    // No terminating chunk: every HTTP client sees the body cut, not a finished answer.
    this.res.destroy();
  }

  onClose(listener: () => void): void {
    const res = this.res;
    // `on`: a response closes once (`once` would wrap the listener in two more objects).
    res.on('close', () => {
      if (!res.writableFinished) listener();
    });
  }

  /**
   * The stream's last record has come: hold what follows so the end goes out in the same write.
   * (Not res.cork(): on Node 22 and 24 a corked response that is then ended loses the corked
   * bytes.) If the upstream keeps its body open after the last record, the held bytes go out on
   * the next turn.
   */
  hold(): void {
    if (this.pending) return;
    this.pending = [];
    setImmediate(() => {
      const pending = this.pending;
      if (!pending || this.res.writableEnded) return;
      this.pending = undefined;
      for (const c of pending) this.res.write(c);
    });
  }
}

/** A relayed stream, pushed into the Node response by the upstream's callbacks. */
class StreamBody implements NodeBody {
  constructor(private readonly body: RelayedStream) {}

  pipe(res: ServerResponse): void {
    this.body.pushTo(new NodeTarget(res));
  }

  destroy(): void {
    cancel(this.body);
  }
}

/** Starts a stream only to stop it, so it settles (releases the upstream, meters what was used). */
function cancel(body: AsyncIterable<string | Uint8Array>): void {
  const iterator = body[Symbol.asyncIterator]();
  void iterator
    .next()
    .then(() => iterator.return?.())
    .catch(() => undefined);
}

/**
 * A web ReadableStream as a stream target (hosts without a Node response, in-process
 * `app.fetch`): the same push, the same holds and the same end as the Node target, so what
 * an in-process test sees of an answer's end is what production sends.
 */
class WebTarget implements StreamTarget {
  private readonly encoder = new TextEncoder();
  private drain: (() => void) | undefined;
  private close: (() => void) | undefined;
  private ended = false;

  constructor(private readonly controller: ReadableStreamDefaultController<Uint8Array>) {}

  write(chunk: string | Uint8Array): boolean {
    if (this.ended) return true;
    if (chunk.length > 0) this.controller.enqueue(typeof chunk === 'string' ? this.encoder.encode(chunk) : chunk);
    return (this.controller.desiredSize ?? 1) > 0;
  }

  end(chunk?: string | Uint8Array, apart?: string): void {
    if (this.ended) return;
    if (chunk !== undefined) this.write(chunk);
    // A chunk of its own: the reader gets each enqueued chunk as it was.
    if (apart !== undefined) this.write(apart);
    this.ended = true;
    this.controller.close();
  }

  onDrain(listener: () => void): void {
    this.drain = listener;
  }

  onClose(listener: () => void): void {
    this.close = listener;
  }

  /** The reader wants more. */
  pulled(): void {
    const drain = this.drain;
    this.drain = undefined;
    drain?.();
  }

  /** The answer's records could not be written: the body errors instead of ending (no whole answer without its record). */
  abort(): void {
    if (this.ended) return;
    this.ended = true;
    this.controller.error(new Error("The answer's records could not be written."));
  }

  /** The reader went away before the end. */
  cancelled(): void {
    if (this.ended) return;
    this.ended = true;
    const close = this.close;
    this.close = undefined;
    close?.();
  }
}

/** A relayed stream as a web body, pushed through a WebTarget. */
function webStream(body: RelayedStream): ReadableStream<Uint8Array> {
  let target: WebTarget | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        target = new WebTarget(controller);
        body.pushTo(target);
      },
      pull() {
        target?.pulled();
      },
      cancel() {
        target?.cancelled();
      },
    },
    { highWaterMark: 16 },
  );
}

/**
 * Sends a relayed SSE stream, pushed into a stream target by the upstream's callbacks: the
 * Node response (about half the CPU of a web ReadableStream per response, stack notes), or
 * elsewhere a web Response whose body is one.
 */
export function sendStream(
  event: H3Event,
  status: number,
  headers: Record<string, string>,
  body: RelayedStream,
): unknown {
  const node = nodeOf(event);
  if (!node) {
    const allHeaders: Record<string, string> = {};
    event.res.headers.forEach((value, key) => (allHeaders[key] = value));
    Object.assign(allHeaders, headers);
    allHeaders['x-request-id'] = requestState(event).ids.requestId;
    return new Response(webStream(body), { status, headers: allHeaders });
  }
  event.res.status = status;
  writeHead(event, node, status, headers);
  return new StreamBody(body);
}

/**
 * A body sent a piece at a time as `pieces` yields them (a file's contents, a large batch's
 * results), each read only when the client has taken the last: memory holds a piece, not the
 * body. Chunked unless `headers` give the length (a stored file's, known from its record); a piece
 * that cannot be made cuts the body.
 */
export function sendPieces(event: H3Event, status: number, headers: Record<string, string>, pieces: AsyncIterable<Uint8Array>): Response {
  const all = new Headers(event.res.headers);
  for (const name in headers) all.set(name, headers[name]);
  all.set('x-request-id', requestState(event).ids.requestId);
  const iterator = pieces[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status, headers: all });
}
