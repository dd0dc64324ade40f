import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import { GatewayError, isGatewayError } from '../errors/index.ts';
import { findTooDeepField, MAX_JSON_DEPTH, type MaybePromise } from '../util/index.ts';
import type { BodyBudget } from './body-budget.ts';
import type { ByteLimit } from './byte-limit.ts';
import { ClientClosedError, tooLarge } from './body-errors.ts';
import { nodeOf } from './context.ts';
import { JsonStreamParser, tooDeep } from './json-stream-parser.ts';
import { readJsonIncrementally } from './read-json-incrementally.ts';
import type { ServerDeps } from './types.ts';

/**
 * The body when Node has all its declared bytes buffered and nobody reads it yet (taken without
 * listeners, ticks or a promise). Not `req.complete`: Node sets that a turn after the last body
 * byte is buffered, and a Content-Length body has no byte after its declared length.
 */
function takeBuffered(req: IncomingMessage, declared: number): Buffer | undefined {
  if (req.readableLength !== declared || req.readableFlowing) return undefined;
  return declared === 0 ? Buffer.alloc(0) : ((req.read() as Buffer | null) ?? undefined);
}

/**
 * Reads a body through the stream's events (an async iterator costs a promise per chunk and
 * more garbage per request, and leaving one early destroys the request and its socket, so a
 * 413 never reached the client). Past `limit` (a body without Content-Length) it stops keeping
 * the bytes, lets the rest flow away and fails with 413.
 */
function readListening(req: IncomingMessage, first: Buffer | undefined, limit?: ByteLimit): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = first ? [first] : [];
    let size = first?.length ?? 0;
    let settled = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!limit || size <= limit.bytes) return void chunks.push(chunk);
      settled = true;
      req.off('data', onData);
      chunks.length = 0;
      req.resume();
      reject(tooLarge(limit));
    };
    req.on('data', onData);
    req.once('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.once('error', () => reject(new ClientClosedError()));
    req.once('close', () => {
      if (!settled) reject(new ClientClosedError());
    });
  });
}

/**
 * A body whose Content-Length is known and within the limit. A small body nearly always came in
 * with the head, but Node's parser hands it to the request only after the handler's synchronous
 * start (the head's callback runs first): so it is looked for again one microtask later, when the
 * parser has finished that read, before falling back to the stream's events.
 */
function readDeclared(req: IncomingMessage, declared: number): Buffer | Promise<Buffer> {
  const now = takeBuffered(req, declared);
  if (now && now.length === declared) return now;
  if (now) return readListening(req, now);
  return Promise.resolve().then(() => {
    const later = takeBuffered(req, declared);
    if (later && later.length === declared) return later;
    // The socket may have closed before this turn (its 'close' already emitted): no listener would hear it.
    if (!later && req.destroyed) throw new ClientClosedError();
    return readListening(req, later);
  });
}

/** The raw body: at once when it is already buffered whole, else a promise; throws 413 past `limit`. */
function takeRawBody(event: H3Event, limit: ByteLimit): Buffer | Promise<Buffer> {
  const node = nodeOf(event);
  // Node refuses conflicting Content-Length headers itself, so its parsed value is the one.
  const declared = Number((node ? node.req.headers['content-length'] : event.req.headers.get('content-length')) ?? NaN);
  if (Number.isFinite(declared) && declared > limit.bytes) throw tooLarge(limit);
  if (node && Number.isFinite(declared)) return readDeclared(node.req, declared);
  return readStreamed(event, limit);
}

/** Reads the raw body, failing with 413 as soon as it passes `limit` (Content-Length or streamed). */
export function readRawBody(event: H3Event, limit: ByteLimit): Promise<Buffer> {
  try {
    const body = takeRawBody(event, limit);
    return body instanceof Promise ? body : Promise.resolve(body);
  } catch (error) {
    return Promise.reject(error);
  }
}

async function readStreamed(event: H3Event, limit: ByteLimit): Promise<Buffer> {
  const node = nodeOf(event);
  if (node) return readListening(node.req, undefined, limit);
  const body = event.req.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit.bytes) throw tooLarge(limit);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** What bounds a JSON body: its bytes (and what sets them), its values (docs/limits.md), the process's budget of bodies being parsed. */
export interface JsonBodyBounds extends ByteLimit {
  values: number;
  budget: BodyBudget;
}

/** The bounds of a JSON body within `limit` on this server (its one parse budget, made with the gateway). */
export function jsonBodyBounds(deps: Pick<ServerDeps, 'config' | 'bodyBudget'>, limit: ByteLimit): JsonBodyBounds {
  return { bytes: limit.bytes, setting: limit.setting, values: deps.config.server.bodyLimits.jsonValues, budget: deps.bodyBudget };
}

/**
 * Bodies up to this size are parsed by V8 at once, when whole: 16 KiB holds at most ~8,000
 * values (far under any value bound) and parses in well under a millisecond, even as the worst
 * shape. Larger ones go through the incremental parser as they arrive.
 */
export const SMALL_JSON_BYTES = 16 * 1024;

/** A JSON object body, as text and parsed. */
export interface JsonObjectBody {
  raw: string;
  body: Record<string, unknown>;
}

/**
 * Reads and parses a JSON object body: 400 for malformed JSON or a non-object, 422 naming the
 * field whose value nests deeper than MAX_JSON_DEPTH (the body itself is level 1), 413 past
 * its bytes or values, 503 when the parse budget is spent. At once (no promise, no await) when
 * the body is small and already buffered whole, as a small body nearly always is, else a
 * promise; so it throws or rejects with those errors (call it inside an async handler).
 */
export function readJsonObject(event: H3Event, bounds: JsonBodyBounds): MaybePromise<JsonObjectBody> {
  const node = nodeOf(event);
  const declared = Number((node ? node.req.headers['content-length'] : event.req.headers.get('content-length')) ?? NaN);
  if (Number.isFinite(declared) && declared > bounds.bytes) throw tooLarge(bounds);
  if (!node) return readStreamed(event, bounds).then((bytes) => parseWhole(bytes, bounds));
  if (Number.isFinite(declared) && declared <= SMALL_JSON_BYTES) {
    const bytes = readDeclared(node.req, declared);
    return bytes instanceof Promise ? bytes.then(parseJsonObject) : parseJsonObject(bytes);
  }
  return readJsonIncrementally(node.req, Number.isFinite(declared) ? declared : undefined, bounds);
}

/** A body read whole elsewhere (not served by Node): V8 for a small one, the incremental parser for a large one. */
function parseWhole(bytes: Buffer, bounds: JsonBodyBounds): JsonObjectBody {
  if (bytes.length <= SMALL_JSON_BYTES) return parseJsonObject(bytes);
  const parser = new JsonStreamParser(bounds.values, MAX_JSON_DEPTH);
  parser.feed(bytes, 0, Infinity);
  return { raw: bytes.toString('utf8'), body: parser.finish() };
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
  if (deep !== undefined) throw tooDeep(deep, MAX_JSON_DEPTH);
  return { raw, body: body as Record<string, unknown> };
}
