import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { constants, createServer as createHttp2Server, type Http2Server, type Http2ServerRequest, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** What a client speaking HTTP/2 with prior knowledge sends first (RFC 9113, 3.4). */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** Streams one HTTP/2 session may have open at once unless told (nginx's http2_max_concurrent_streams default). */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 128;

export interface H2cOptions {
  /** SETTINGS_MAX_CONCURRENT_STREAMS: a stream opened past it is refused (RST_STREAM REFUSED_STREAM, safe for a client to retry). */
  maxConcurrentStreams?: number;
}

/** The HTTP/2 side of a listener: its server (for 'request' listeners) and its open sessions. */
export interface H2cSide {
  server: Http2Server;
  /** Stops taking new streams: undecided connections are closed, each session sends GOAWAY and ends once its streams have. */
  closeIdle(): void;
  /** Closes every session and undecided connection now. */
  closeAll(): void;
}

/**
 * The listener's port also speaks HTTP/2 over cleartext with prior knowledge (h2c, what the AWS
 * SDK's default NodeHttp2Handler sends to an http:// endpoint): each connection's first bytes
 * are read once; a connection that opens with the HTTP/2 preface goes to a node:http2 server
 * running `handler`, any other goes to `server`'s own connection listener as the raw socket, the
 * bytes read put back, so an HTTP/1.1 connection is parsed exactly as before (docs/limits.md).
 * `server`'s other 'connection' listeners (the connection cap) still see every connection.
 */
export function acceptH2c(server: Server, handler: NodeHandler, options: H2cOptions = {}): H2cSide {
  // Node's default is no limit (2^32-1 streams a session): one connection could open any number of requests at once.
  const settings = { maxConcurrentStreams: options.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS };
  const h2 = createHttp2Server({ settings }, handler as unknown as Parameters<typeof createHttp2Server>[1]);
  const sessions = new Set<ServerHttp2Session>();
  const undecided = new Set<Socket>();
  h2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // As an HTTP/1.1 connection idle between requests for keepAliveTimeout is closed: a session
    // quiet that long is closed (GOAWAY; a stream still open finishes), else idle sessions held
    // their connections, and the connection cap's slots, forever.
    if (server.keepAliveTimeout > 0) session.setTimeout(server.keepAliveTimeout, () => session.close());
  });
  h2.on('request', (req: Http2ServerRequest) => limitArrival(req, server.requestTimeout));
  // Node's http.Server registers its own connection listener first, in its constructor.
  const [http1] = server.listeners('connection') as ((socket: Socket) => void)[];
  server.off('connection', http1);
  server.prependListener('connection', (socket: Socket) => {
    undecided.add(socket);
    // A connection that closes before it decides (a TCP health check, a port scan) never reaches decide.
    socket.once('close', () => undecided.delete(socket));
    sniff(socket, server.headersTimeout, (isH2, first) => {
      undecided.delete(socket);
      if (isH2) toHttp2(h2, socket, first);
      else toHttp1(server, http1, socket, first);
    });
  });
  return {
    server: h2,
    closeIdle() {
      for (const socket of undecided) socket.destroy();
      for (const session of sessions) session.close();
    },
    closeAll() {
      for (const socket of undecided) socket.destroy();
      for (const session of sessions) session.destroy();
    },
  };
}

/**
 * As Node's requestTimeout bounds the time an HTTP/1.1 request takes to arrive whole (408, the
 * connection closed): an HTTP/2 stream whose client is still sending after `timeoutMs` is reset
 * (CANCEL). Without it a body trickled a byte at a time held its handler, and kept its session
 * from idling, forever. Read from the stream's HTTP/2 state (the client's END_STREAM), not from
 * the request's 'end', which a handler that never reads a body would never see.
 */
function limitArrival(req: Http2ServerRequest, timeoutMs: number): void {
  const stream = req.stream;
  if (!(timeoutMs > 0) || stream.endAfterHeaders) return;
  const timer = setTimeout(() => {
    if (!stream.destroyed && stream.state.state === constants.NGHTTP2_STREAM_STATE_OPEN) stream.close(constants.NGHTTP2_CANCEL);
  }, timeoutMs);
  stream.once('close', () => clearTimeout(timer));
}

/**
 * Reads until the first bytes match the preface whole or differ from it (one byte, for any
 * HTTP/1 method) and says which, with those bytes. It listens for 'data' (flowing mode, as
 * Node's own HTTP/1.1 server does) and never for 'readable': a 'readable' listener leaves the
 * socket's stream marked paused, and once llhttp took it over, a pause() that finds it so emits
 * no 'pause', so the socket was never stopped again and a body nobody read piled up in memory.
 * A connection that sends nothing for `timeoutMs` (Node's headersTimeout for HTTP/1), or ends
 * before the bytes decide, is closed.
 */
function sniff(socket: Socket, timeoutMs: number, decide: (isH2: boolean, first: Buffer) => void): void {
  let seen: Buffer | undefined;
  const ignore = () => undefined;
  // A client that closes before its first bytes say which protocol: nothing to answer (the http server allows half-open sockets, so they stay unless closed).
  const ended = () => socket.destroy();
  const timer = timeoutMs > 0 ? setTimeout(() => socket.destroy(), timeoutMs) : undefined;
  const done = () => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', ignore);
    socket.off('end', ended);
    socket.off('close', done);
  };
  const onData = (chunk: Buffer) => {
    seen = seen ? Buffer.concat([seen, chunk]) : chunk;
    const n = Math.min(seen.length, PREFACE.length);
    const prefix = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
    if (prefix && n < PREFACE.length) return;
    done();
    decide(prefix, seen);
  };
  socket.on('error', ignore);
  socket.on('end', ended);
  socket.on('close', done);
  socket.on('data', onData);
}

/**
 * Gives an HTTP/1.1 connection to Node's own connection listener as if it had had it from the
 * start, and its first bytes to the parser at once. Called from the sniffer's 'data' listener, so
 * the socket's stream is flowing: whatever it still buffers is taken too (read() in flowing mode
 * emits to no listener now), and read(0) leaves it waiting on a read that llhttp, consuming the
 * socket's handle from here on, answers instead, so the stream never starts the handle itself;
 * pause and resume (llhttp's backpressure) then stop and start it, as on any other connection.
 * Nothing is put back into the stream: put back, it could reach the parser from a tick of the
 * stream's own before http's first 'resume', which then restarted a handle llhttp had stopped.
 */
function toHttp1(server: Server, http1: (socket: Socket) => void, socket: Socket, first: Buffer): void {
  let bytes = first;
  let more: Buffer | null;
  while ((more = socket.read() as Buffer | null) !== null) bytes = Buffer.concat([bytes, more]);
  socket.read(0);
  http1.call(server, socket);
  socket.emit('data', bytes);
}

/** Gives an HTTP/2 connection to the node:http2 server: the session reads what the socket's stream holds, so the first bytes are put back there. */
function toHttp2(h2: Http2Server, socket: Socket, first: Buffer): void {
  socket.pause();
  socket.unshift(first);
  h2.emit('connection', socket);
}
