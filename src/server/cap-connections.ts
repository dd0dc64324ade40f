import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { Socket } from 'node:net';
import { buildErrorEnvelope, GatewayError } from '../errors/index.ts';
import { randomToken } from '../util/index.ts';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** Marks a socket past the cap (a property, not a WeakSet: HTTP/2's socket proxy forwards it). */
const REFUSED = Symbol('refused');
type Refusable = Socket & { [REFUSED]?: boolean };

/** How long a refused connection may take to send the request its refusal answers. */
const REFUSED_IDLE_MS = 5_000;

/**
 * `server.maxConnections` (docs/limits.md, "Connections"): past this many open connections on a
 * listener, a new connection's request is answered `503 service_unavailable` with
 * `Retry-After` and `Connection: close`, without reaching a route (no body read, no key
 * looked up); Node's own `maxConnections` would drop it without a word. A refused connection
 * that sends nothing is closed after REFUSED_IDLE_MS.
 */
export function capConnections(max: number): { wrap(handler: NodeHandler): NodeHandler; attach(server: Server): void; readonly open: number } {
  let open = 0;
  const body = (requestId: string) =>
    JSON.stringify(
      buildErrorEnvelope(new GatewayError('service_unavailable', `The gateway has as many open connections as it takes (server.maxConnections, ${max}); retry shortly.`, { retryAfter: 1, details: { limit_connections: max } }), {
        requestId,
        correlationId: requestId,
      }),
    );
  return {
    get open() {
      return open;
    },
    attach(server) {
      server.on('connection', (socket: Socket) => {
        open += 1;
        socket.once('close', () => {
          open -= 1;
        });
        if (open > max) {
          (socket as Refusable)[REFUSED] = true;
          socket.setTimeout(REFUSED_IDLE_MS, () => socket.destroy());
        }
      });
    },
    wrap(handler) {
      return (req, res) => {
        // On HTTP/2 (h2c) req.socket is node's proxy of the connection's socket, which reads the mark through.
        if ((req.socket as Refusable)[REFUSED] !== true) return handler(req, res);
        const requestId = `req_${randomToken(24)}`;
        const text = body(requestId);
        const head = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'retry-after': '1', 'x-request-id': requestId };
        if (req.httpVersionMajor !== 2) {
          res.writeHead(503, { ...head, connection: 'close' });
          res.end(text);
          return undefined;
        }
        // HTTP/2 has no Connection header: the session takes no new stream (GOAWAY, the streams open finish), as
        // `Connection: close` ends a refused HTTP/1.1 connection; else a client that keeps its session busy was refused for ever.
        res.writeHead(503, head);
        res.end(text);
        (req as unknown as Http2ServerRequest).stream.session?.close();
        return undefined;
      };
    },
  };
}
