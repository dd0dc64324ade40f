import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type { RequestIds } from '../errors/index.ts';
import type { RequestRecord } from '../observability/index.ts';
import type { PassedLimits } from '../accounts/index.ts';
import { randomToken } from '../util/index.ts';
import { createTrustProxy, parseForwarded, parseForwardedFor, type TrustProxySetting } from './client-address.ts';

/** The Node request and response under an event. */
export interface NodePair {
  req: IncomingMessage;
  res: ServerResponse;
}

/** Per-request state kept on the h3 event context. */
export interface RequestState {
  ids: RequestIds;
  startedAt: number;
  /** The Node request/response, when served by Node (null: not served by Node). */
  node: NodePair | null;
  /** What observability records about this request (set by the route wrapper). */
  record: RequestRecord | undefined;
  /**
   * The rate limit and slot the request passed before its body was read (passLimitsFirst):
   * its admission takes them over; the route wrapper gives the slot back if it never comes.
   */
  limits: PassedLimits | undefined;
  /**
   * Served by Node: the response headers set so far and not yet on the Node response, as one
   * flat list (`[name, value, …]`, a name set again replaces its value in place, as Node's
   * setHeader does). sendBody and sendStream hand it to `res.writeHead` whole, which skips
   * Node's per-header bookkeeping; anything else moves it onto the Node response first
   * (`flushHead`). Undefined once moved or written: later headers go to the Node response.
   */
  head: string[] | undefined;
}

function findNode(event: H3Event): NodePair | null {
  const node = (event.runtime as { node?: { req?: IncomingMessage; res?: ServerResponse } } | undefined)?.node;
  return node?.req && node.res ? { req: node.req, res: node.res } : null;
}

/** The request ids of an event, created on first use (spec §7: X-Request-ID on every response). */
export function requestState(event: H3Event): RequestState {
  const ctx = event.context as { gateway?: RequestState };
  if (!ctx.gateway) {
    const requestId = `req_${randomToken(24)}`;
    const node = findNode(event);
    const header = node ? node.req.headers['x-correlation-id'] : event.req.headers.get('x-correlation-id');
    const correlation = Array.isArray(header) ? header.join(', ') : header;
    ctx.gateway = {
      ids: { requestId, correlationId: correlation && correlation.length <= 128 ? correlation : requestId },
      startedAt: performance.now(),
      node,
      record: undefined,
      limits: undefined,
      head: node ? [] : undefined,
    };
  }
  return ctx.gateway;
}

/** The Node request/response under an event, when served by Node (not in-process tests). */
export function nodeOf(event: H3Event): NodePair | undefined {
  return requestState(event).node ?? undefined;
}

/** Lowercase of an ASCII code (letters only change); other codes as they are. */
function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/**
 * True when two header names are the same header (names are case-insensitive). Names of one
 * length are told apart by their first and last characters before both are lowercased (a
 * chat answer's head compares about twenty pairs; `x-request-id` and `content-type` are both 12 long).
 */
function sameHeader(a: string, b: string): boolean {
  if (a === b) return true;
  const n = a.length;
  if (n !== b.length || n === 0) return false;
  const x = a.charCodeAt(0);
  const y = b.charCodeAt(0);
  if (x < 128 && y < 128 && lowerAscii(x) !== lowerAscii(y)) return false;
  const p = a.charCodeAt(n - 1);
  const q = b.charCodeAt(n - 1);
  if (p < 128 && q < 128 && lowerAscii(p) !== lowerAscii(q)) return false;
  return a.toLowerCase() === b.toLowerCase();
}

/** Sets `name` in a flat header list: its value replaced in place when it is there (Node's setHeader order), else added at the end. */
export function putHeader(head: string[], name: string, value: string): void {
  for (let i = 0; i < head.length; i += 2) {
    if (sameHeader(head[i], name)) {
      head[i] = name;
      head[i + 1] = value;
      return;
    }
  }
  head.push(name, value);
}

/**
 * Sets a response header. Under Node it is kept in the request's head (written whole by
 * sendBody or sendStream, or moved onto the Node response by `flushHead`, which srvx merges
 * into the head it writes): no web Headers object per request on the inference path.
 */
export function setResponseHeader(event: H3Event, name: string, value: string): void {
  const state = requestState(event);
  const node = state.node;
  if (!node) event.res.headers.set(name, value);
  else if (state.head) putHeader(state.head, name, value);
  else node.res.setHeader(name, value);
}

/**
 * Moves the headers kept in the request's head onto the Node response, in the order they were
 * set, before something other than sendBody or sendStream answers (an error, a route that
 * returns its body to h3). A header Node refuses (an invalid character) is left out, as its
 * setHeader call would have been. Later headers go to the Node response at once.
 */
export function flushHead(event: H3Event): void {
  const state = requestState(event);
  const head = state.head;
  if (!head || !state.node) return;
  state.head = undefined;
  const res = state.node.res;
  if (res.headersSent) return;
  for (let i = 0; i < head.length; i += 2) {
    try {
      res.setHeader(head[i], head[i + 1]);
    } catch {
      // refused by Node: never set, as before
    }
  }
}

/**
 * A request header. Under Node it is read from the Node request, which joins repeated
 * headers with ", " like web Headers do; only for headers Node does not de-duplicate
 * (not authorization, content-type, host… — those go through h3).
 */
export function requestHeader(event: H3Event, name: string): string | undefined {
  const node = requestState(event).node;
  if (!node) return event.req.headers.get(name) ?? undefined;
  const value = node.req.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined;
}

/** The socket peer of a request (the address an in-process test gave it), before any proxy header. */
function peerOf(event: H3Event): string {
  return (event.req as { ip?: string }).ip ?? nodeOf(event)?.req.socket.remoteAddress ?? 'unknown';
}

/**
 * The reader of a request's client address under one `server.trustProxy` setting, its policy
 * compiled once (ServerDeps.clientAddress, made with the gateway): the socket peer, or the
 * address the trusted proxies appended to X-Forwarded-For (`Forwarded: for=` when there is no
 * X-Forwarded-For), never one the client wrote itself (docs/config.md, "Behind a reverse proxy").
 */
export function createClientAddress(trustProxy: TrustProxySetting): (event: H3Event) => string {
  if (trustProxy === false) return peerOf;
  const policy = createTrustProxy(trustProxy);
  return (event) => {
    const xff = requestHeader(event, 'x-forwarded-for');
    const forwarded = xff ? undefined : requestHeader(event, 'forwarded');
    const chain = xff ? parseForwardedFor(xff) : forwarded ? parseForwarded(forwarded) : [];
    return policy.clientOf(peerOf(event), chain);
  };
}
