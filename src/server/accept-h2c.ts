import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** What a client speaking HTTP/2 with prior knowledge sends first (RFC 9113, 3.4). */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

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
export function acceptH2c(server: Server, handler: NodeHandler): H2cSide {
  const h2 = createHttp2Server({}, handler as unknown as Parameters<typeof createHttp2Server>[1]);
  const sessions = new Set<ServerHttp2Session>();
  const undecided = new Set<Socket>();
  h2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Node's http.Server registers its own connection listener first, in its constructor.
  const [http1] = server.listeners('connection') as ((socket: Socket) => void)[];
  server.off('connection', http1);
  server.prependListener('connection', (socket: Socket) => {
    undecided.add(socket);
    sniff(socket, server.headersTimeout, (isH2) => {
      undecided.delete(socket);
      if (isH2) h2.emit('connection', socket);
      else http1.call(server, socket);
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
 * Reads until the first bytes match the preface whole or differ from it (one byte, for any
 * HTTP/1 method), puts them back and says which. A connection that sends nothing for
 * `timeoutMs` (Node's headersTimeout for HTTP/1), or ends before they decide, is closed.
 */
function sniff(socket: Socket, timeoutMs: number, decide: (isH2: boolean) => void): void {
  let seen: Buffer | undefined;
  const ignore = () => undefined;
  // A client that closes before its first bytes say which protocol: nothing to answer (the http server allows half-open sockets, so they stay unless closed).
  const ended = () => socket.destroy();
  const timer = timeoutMs > 0 ? setTimeout(() => socket.destroy(), timeoutMs) : undefined;
  const done = () => {
    clearTimeout(timer);
    socket.off('readable', onReadable);
    socket.off('error', ignore);
    socket.off('end', ended);
    socket.off('close', done);
  };
  const onReadable = () => {
    let chunk: Buffer | null;
    while ((chunk = socket.read() as Buffer | null) !== null) seen = seen ? Buffer.concat([seen, chunk]) : chunk;
    if (!seen) return;
    const n = Math.min(seen.length, PREFACE.length);
    const prefix = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
    if (prefix && n < PREFACE.length) return;
    done();
    socket.unshift(seen);
    decide(prefix);
  };
  socket.on('error', ignore);
  socket.on('end', ended);
  socket.on('close', done);
  socket.on('readable', onReadable);
}
