import { once } from 'node:events';
import type { H3Event } from 'h3';
import { buildErrorEnvelope, toGatewayError, type GatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/registry.ts';
import type { WireFormat } from '../ir/types.ts';
import { nodeOf, requestState } from './context.ts';

/** h3's marker for "the handler already wrote the Node response". */
const HANDLED = Symbol.for('h3.handled');

/** The error body a route's clients read natively: format-specific on inference routes. */
export function errorBody(error: GatewayError, event: H3Event, format?: WireFormat): Record<string, unknown> {
  const ids = requestState(event).ids;
  return format ? getCodec(format).encodeError(error, ids) : (buildErrorEnvelope(error, ids) as unknown as Record<string, unknown>);
}

/** Builds the error response for anything thrown by a handler. */
export function errorResponse(thrown: unknown, event: H3Event, format?: WireFormat): Response {
  const error = toGatewayError(thrown);
  const headers = new Headers(event.res.headers);
  headers.set('content-type', 'application/json');
  headers.set('x-request-id', requestState(event).ids.requestId);
  for (const [k, v] of Object.entries(error.headers ?? {})) headers.set(k, v);
  if (error.retryAfter !== undefined && !headers.has('retry-after')) headers.set('retry-after', String(error.retryAfter));
  return new Response(JSON.stringify(errorBody(error, event, format)), { status: error.status, headers });
}

/** A JSON response with the request id header. */
export function json(event: H3Event, body: unknown, status = 200): string {
  event.res.status = status;
  event.res.headers.set('content-type', 'application/json');
  return JSON.stringify(body);
}

/**
 * Sends an SSE (or other streamed) body. Under Node it writes straight to the socket
 * (about half the CPU of a web ReadableStream per response, stack notes); elsewhere it
 * returns a web Response. `onClose` fires if the client leaves before the end.
 */
export async function sendStream(
  event: H3Event,
  status: number,
  headers: Record<string, string>,
  body: AsyncIterable<string | Uint8Array>,
): Promise<unknown> {
  const node = nodeOf(event);
  const allHeaders: Record<string, string> = {};
  event.res.headers.forEach((value, key) => (allHeaders[key] = value));
  Object.assign(allHeaders, headers);
  allHeaders['x-request-id'] = requestState(event).ids.requestId;
  if (!node) {
    const iterator = body[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value);
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    return new Response(stream, { status, headers: allHeaders });
  }
  const { res } = node;
  res.writeHead(status, allHeaders);
  for await (const chunk of body) {
    if (res.destroyed) break;
    if (!res.write(chunk)) {
      await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
  }
  if (!res.destroyed) res.end();
  return HANDLED;
}
