import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import { GatewayError, validationError } from '../errors/index.ts';
import { findTooDeepField, MAX_JSON_DEPTH } from '../util/json-depth.ts';
import { nodeOf } from './context.ts';

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `The request body exceeds the limit of ${limit} bytes.`, { details: { limit_bytes: limit } });
}

/**
 * The client went away before its body was read: a normal event (a cancelled upload), not a
 * failure of the gateway. Nobody is left to read the answer; the route wrapper logs it at debug.
 */
export class ClientClosedError extends GatewayError {
  constructor() {
    super('bad_request', 'The client closed the connection before the body was read.');
    this.name = 'ClientClosedError';
  }
}

/**
 * Reads a body whose Content-Length is known and within the limit through the stream's
 * events (an async iterator costs a promise per chunk and more garbage per request).
 */
function readDeclared(req: IncomingMessage, declared: number): Buffer | Promise<Buffer> {
  let first: Buffer | undefined;
  // A small body nearly always came in with the head and is already buffered: take it as it is,
  // without listeners, the stream's ticks or a promise.
  if (req.complete && req.readableLength === declared && !req.readableFlowing) {
    if (declared === 0) return Buffer.alloc(0);
    first = (req.read() as Buffer | null) ?? undefined;
    if (first && first.length === declared) return first;
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = first ? [first] : [];
    let ended = false;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.once('error', () => reject(new ClientClosedError()));
    req.once('close', () => {
      if (!ended) reject(new ClientClosedError());
    });
  });
}

/** The raw body: at once when it is already buffered whole, else a promise; throws 413 past `limit`. */
function takeRawBody(event: H3Event, limit: number): Buffer | Promise<Buffer> {
  const node = nodeOf(event);
  // Node refuses conflicting Content-Length headers itself, so its parsed value is the one.
  const declared = Number((node ? node.req.headers['content-length'] : event.req.headers.get('content-length')) ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (node && Number.isFinite(declared)) return readDeclared(node.req, declared);
  return readStreamed(event, limit);
}

/** Reads the raw body, failing with 413 as soon as it passes `limit` (Content-Length or streamed). */
export function readRawBody(event: H3Event, limit: number): Promise<Buffer> {
  try {
    const body = takeRawBody(event, limit);
    return body instanceof Promise ? body : Promise.resolve(body);
  } catch (error) {
    return Promise.reject(error);
  }
}

async function readStreamed(event: H3Event, limit: number): Promise<Buffer> {
  const node = nodeOf(event);
  if (node) {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of node.req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          node.req.resume();
          throw tooLarge(limit);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new ClientClosedError();
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
  const body = event.req.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * Reads and parses a JSON object body: 400 for malformed JSON or a non-object, 422 naming the
 * field whose value nests deeper than MAX_JSON_DEPTH (the body itself is level 1).
 */
export async function readJsonObject(event: H3Event, limit: number): Promise<JsonObjectBody> {
  return readJsonObjectNow(event, limit);
}

/** A JSON object body, as text and parsed. */
export interface JsonObjectBody {
  raw: string;
  body: Record<string, unknown>;
}

/**
 * readJsonObject, answered at once (no promise, no await) when the body is already buffered
 * whole, as a small body nearly always is; else a promise. Throws what readJsonObject rejects with.
 */
export function readJsonObjectNow(event: H3Event, limit: number): JsonObjectBody | Promise<JsonObjectBody> {
  const bytes = takeRawBody(event, limit);
  return bytes instanceof Promise ? bytes.then(parseJsonObject) : parseJsonObject(bytes);
}

function parseJsonObject(bytes: Buffer): JsonObjectBody {
  const raw = bytes.toString('utf8');
  if (raw.trim() === '') throw new GatewayError('bad_request', 'The request body is empty; a JSON object is required.');
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (error) {
    throw new GatewayError('bad_request', `The request body is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('bad_request', 'The request body must be a JSON object.');
  // Before anything is stored or forwarded: a deep value would overflow every recursive reader after us.
  const deep = findTooDeepField(body as Record<string, unknown>);
  if (deep !== undefined) throw validationError({ [deep]: `must not nest objects and arrays deeper than ${MAX_JSON_DEPTH} levels` });
  return { raw, body: body as Record<string, unknown> };
}
