import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { buildErrorEnvelope, GatewayError } from '../errors/index.ts';
import { randomToken } from '../util/index.ts';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

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
  const refused = new WeakSet<Socket>();
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
          refused.add(socket);
          socket.setTimeout(REFUSED_IDLE_MS, () => socket.destroy());
        }
      });
    },
    wrap(handler) {
      return (req, res) => {
        if (!refused.has(req.socket)) return handler(req, res);
        const requestId = `req_${randomToken(24)}`;
        const text = body(requestId);
        res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'retry-after': '1', 'x-request-id': requestId, connection: 'close' });
        res.end(text);
        return undefined;
      };
    },
  };
}
