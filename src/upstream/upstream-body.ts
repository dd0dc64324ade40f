import { GatewayError } from '../errors/index.ts';
import type { ChunkHandler, ChunkSource } from './types.ts';

/** Collects a whole body. */
class Collector implements ChunkHandler {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly resolve: (body: Buffer) => void,
    readonly error: (error: unknown) => void,
    private readonly maxBytes: number,
    private readonly stop: () => void,
  ) {}

  data(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.chunks.length = 0;
      this.stop();
      this.error(answerTooLarge(this.maxBytes));
      return;
    }
    this.chunks.push(chunk);
  }

  end(): void {
    this.resolve(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks));
  }
}

/** A whole answer longer than its reader takes (readBody's `maxBytes`): the provider's error, 502, nothing charged. */
export function answerTooLarge(maxBytes: number): GatewayError {
  return new GatewayError('provider_error', `The provider's answer is larger than ${maxBytes} bytes, the most the gateway reads of one whole answer.`, { details: { limit_bytes: maxBytes } });
}

/** Bytes queued before the upstream is asked to wait (like a Node stream's highWaterMark). */
const HIGH_WATER = 64 * 1024;

/**
 * An upstream response body fed straight from undici's dispatch callbacks. A relayed stream
 * reads it through `resume(handler)` (no Node stream, no promise per chunk); anything else
 * iterates it like any async iterable. Chunks that arrive before anyone reads, or while the
 * reader is paused, are queued; past 64 KB undici stops reading the socket until resumed.
 */
export class UpstreamBody implements ChunkSource, AsyncIterable<Uint8Array> {
  private queue: Buffer[] = [];
  private queued = 0;
  private handler: ChunkHandler | undefined;
  private flowing = false;
  private ended = false;
  private failure: { error: unknown } | undefined;
  /** Nothing more is delivered: ended, failed or destroyed, and told. */
  private closed = false;
  private waiting = false;

  constructor(
    /** Stops the upstream request (undici's abort). */
    private readonly abortUpstream: (reason?: unknown) => void,
    /** Lets undici read the socket again after `push` returned false. */
    private readonly resumeUpstream: () => void,
  ) {}

  /** undici: a chunk arrived. False asks undici to stop reading until resumed. */
  push(chunk: Buffer): boolean {
    if (this.closed) return true;
    if (this.flowing) {
      this.handler!.data(chunk);
      if (this.flowing || this.closed) return true;
      this.waiting = true;
      return false;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued < HIGH_WATER) return true;
    this.waiting = true;
    return false;
  }

  /** undici: the body is complete. */
  finish(): void {
    if (this.closed) return;
    this.ended = true;
    if (this.flowing && this.queue.length === 0) {
      this.closed = true;
      this.handler!.end();
    }
  }

  /** undici: the request failed (reset, timeout, abort). Queued chunks are dropped, as a destroyed stream drops them. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.failure = { error };
    this.queue = [];
    this.queued = 0;
    if (this.handler && this.flowing) {
      this.closed = true;
      this.handler.error(error);
    }
  }

  /** Delivers chunks to `handler` (replacing any earlier one) until paused, ended or failed. */
  resume(handler: ChunkHandler): void {
    if (this.closed) return;
    this.handler = handler;
    this.flowing = true;
    while (this.queue.length > 0 && this.flowing && !this.closed) {
      const chunk = this.queue.shift()!;
      this.queued -= chunk.length;
      handler.data(chunk);
    }
    if (!this.flowing || this.closed) return;
    if (this.failure) {
      this.closed = true;
      handler.error(this.failure.error);
    } else if (this.ended) {
      this.closed = true;
      handler.end();
    } else if (this.waiting) {
      this.waiting = false;
      this.resumeUpstream();
    }
  }

  /** Stops delivery until the next `resume`. */
  pause(): void {
    this.flowing = false;
  }

  /** Stops reading and frees the upstream; no callback follows. */
  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queued = 0;
    if (!this.ended && !this.failure) this.abortUpstream();
  }

  /** The whole body in one buffer; past `maxBytes` the upstream is stopped and the read fails (answerTooLarge). */
  readAll(maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
    return new Promise((resolve, reject) => this.resume(new Collector(resolve, reject, maxBytes, () => this.destroy())));
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const chunks: Buffer[] = [];
    let done = false;
    let failure: { error: unknown } | undefined;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const handler: ChunkHandler = {
      data: (chunk) => {
        chunks.push(chunk);
        this.pause();
        notify();
      },
      end: () => {
        done = true;
        notify();
      },
      error: (error) => {
        failure = { error };
        notify();
      },
    };
    return {
      next: async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          if (chunks.length > 0) return { value: chunks.shift()!, done: false };
          if (failure) throw failure.error;
          if (done) return { value: undefined, done: true };
          const waiting = new Promise<void>((resolve) => (wake = resolve));
          this.resume(handler);
          await waiting;
        }
      },
      return: async (): Promise<IteratorResult<Uint8Array>> => {
        if (!done) this.destroy();
        done = true;
        return { value: undefined, done: true };
      },
    };
  }
}
