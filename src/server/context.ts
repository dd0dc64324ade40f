import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type { RequestIds } from '../errors/index.ts';
import { randomToken } from '../util/secrets.ts';

/** Per-request state kept on the h3 event context. */
export interface RequestState {
  ids: RequestIds;
  startedAt: number;
}

/** The request ids of an event, created on first use (spec §7: X-Request-ID on every response). */
export function requestState(event: H3Event): RequestState {
  const ctx = event.context as { gateway?: RequestState };
  if (!ctx.gateway) {
    const requestId = `req_${randomToken(24)}`;
    const correlation = event.req.headers.get('x-correlation-id');
    ctx.gateway = {
      ids: { requestId, correlationId: correlation && correlation.length <= 128 ? correlation : requestId },
      startedAt: performance.now(),
    };
  }
  return ctx.gateway;
}

/** The Node request/response under an event, when served by Node (not in-process tests). */
export function nodeOf(event: H3Event): { req: IncomingMessage; res: ServerResponse } | undefined {
  const node = (event.runtime as { node?: { req?: IncomingMessage; res?: ServerResponse } } | undefined)?.node;
  return node?.req && node.res ? { req: node.req, res: node.res } : undefined;
}

/** The client's address (X-Forwarded-For only when the operator trusts the proxy). */
export function clientAddress(event: H3Event, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = event.req.headers.get('x-forwarded-for');
    if (forwarded) return forwarded.split(',')[0].trim();
  }
  const ip = (event.req as { ip?: string }).ip ?? nodeOf(event)?.req.socket.remoteAddress;
  return ip ?? 'unknown';
}
