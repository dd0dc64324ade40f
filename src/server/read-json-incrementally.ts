import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { isGatewayError } from '../errors/index.ts';
import { MAX_JSON_DEPTH } from '../util/index.ts';
import type { BodyBudget } from './body-budget.ts';
import type { ByteLimit } from './byte-limit.ts';
import { ClientClosedError, tooLarge } from './body-errors.ts';
import { JsonStreamParser } from './json-stream-parser.ts';

/**
 * How long the parser may hold the event loop before it lets other requests run. Measured on
 * a 2-core box (bench/json-body-bench.ts): the parser's slices and the text decoding of a
 * 64 KiB socket chunk stay well under this.
 */
export const PARSE_SLICE_MS = 3;

interface Bounds extends ByteLimit {
  values: number;
  budget: BodyBudget;
}

/**
 * Parses a large JSON object body as it arrives (docs/limits.md, "Large JSON bodies"): each
 * chunk is decoded and parsed on arrival, in slices of at most PARSE_SLICE_MS with the event
 * loop free in between (the request is paused meanwhile, so the socket applies back-pressure);
 * the byte, value and depth bounds refuse the body as soon as they are passed, before the rest
 * is read. The body's declared size (or, chunked, what has arrived) is held in the process's
 * parse budget until the parse ends.
 */
export function readJsonIncrementally(req: IncomingMessage, declared: number | undefined, bounds: Bounds): Promise<{ raw: string; body: Record<string, unknown> }> {
  // Taken before a byte is read: a refused body costs nothing.
  bounds.budget.take(declared ?? 0);
  return new Promise((resolve, reject) => new IncrementalRead(req, declared ?? 0, bounds, resolve, reject).start());
}

class IncrementalRead {
  private readonly parser: JsonStreamParser;
  private readonly decoder = new StringDecoder('utf8');
  private raw = '';
  private size = 0;
  private deadline = 0;
  private lastFed = 0;
  /** A chunk paused part-way (the slice ran out), and where to resume it. */
  private pending: Buffer | undefined;
  private pendingAt = 0;
  private ended = false;
  private done = false;

  constructor(
    private readonly req: IncomingMessage,
    private taken: number,
    private readonly bounds: Bounds,
    private readonly resolve: (body: { raw: string; body: Record<string, unknown> }) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.parser = new JsonStreamParser(bounds.values, MAX_JSON_DEPTH);
  }

  private readonly onData = (chunk: Buffer) => {
    if (this.done) return;
    try {
      this.size += chunk.length;
      if (this.size > this.bounds.bytes) throw tooLarge(this.bounds);
      if (this.size > this.taken) {
        this.bounds.budget.take(this.size - this.taken);
        this.taken = this.size;
      }
      this.raw += this.decoder.write(chunk);
      const now = performance.now();
      // A gap since the last chunk means the loop has run other work meanwhile: a fresh slice.
      if (now - this.lastFed > 1) this.deadline = now + PARSE_SLICE_MS;
      this.feed(chunk, 0);
    } catch (error) {
      this.finish(error);
    }
  };

  private readonly onEnd = () => {
    this.ended = true;
    if (!this.pending) this.complete();
  };

  private readonly onClose = () => {
    if (!this.ended) this.finish(new ClientClosedError());
  };

  start(): void {
    this.req.on('data', this.onData);
    this.req.once('end', this.onEnd);
    this.req.once('error', this.onClose);
    this.req.once('close', this.onClose);
  }

  /** Parses `chunk` from `at` until it is done or the slice runs out; then pauses and resumes on the next turn. */
  private feed(chunk: Buffer, at: number): void {
    const next = this.parser.feed(chunk, at, this.deadline);
    this.lastFed = performance.now();
    if (next === chunk.length && this.lastFed <= this.deadline) return;
    this.pending = next < chunk.length ? chunk : undefined;
    this.pendingAt = next;
    this.req.pause();
    setImmediate(this.resume);
  }

  private readonly resume = () => {
    if (this.done) return;
    this.deadline = performance.now() + PARSE_SLICE_MS;
    const chunk = this.pending;
    this.pending = undefined;
    try {
      if (chunk) this.feed(chunk, this.pendingAt);
    } catch (error) {
      this.finish(error);
      return;
    }
    if (this.pending) return;
    if (this.ended) this.complete();
    else this.req.resume();
  };

  private complete(): void {
    if (this.done) return;
    try {
      const body = this.parser.finish();
      this.raw += this.decoder.end();
      this.finish(undefined, { raw: this.raw, body });
    } catch (error) {
      this.finish(error);
    }
  }

  private finish(error: unknown, body?: { raw: string; body: Record<string, unknown> }): void {
    if (this.done) return;
    this.done = true;
    this.bounds.budget.give(this.taken);
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onClose);
    this.req.off('close', this.onClose);
    this.raw = '';
    if (body) this.resolve(body);
    else this.reject(isGatewayError(error) ? error : new ClientClosedError());
  }
}
