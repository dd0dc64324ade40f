import { Readable } from 'node:stream';
import type { ChunkHandler, ChunkSource } from './types.ts';
import { UpstreamBody } from './upstream-body.ts';

function toBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** A Node stream (a plugin's own client) through its `data`/`end`/`error` events. */
class ReadableSource implements ChunkSource {
  private handler: ChunkHandler | undefined;
  private attached = false;
  private paused = true;
  private closed = false;
  /** What arrived while paused: a stream may still emit a chunk or its end after `pause()`. */
  private queued: Buffer[] = [];
  private ended = false;
  private failure: { error: unknown } | undefined;

  constructor(private readonly stream: Readable) {
    // An error while nobody listens (between peek and relay) would otherwise be thrown.
    stream.on('error', (error) => {
      if (this.closed) return;
      if (this.paused) this.failure = { error };
      else {
        this.closed = true;
        this.handler!.error(error);
      }
    });
  }

  resume(handler: ChunkHandler): void {
    if (this.closed) return;
    this.handler = handler;
    this.paused = false;
    while (this.queued.length > 0 && !this.paused && !this.closed) handler.data(this.queued.shift()!);
    if (this.paused || this.closed) return;
    if (this.failure) {
      this.closed = true;
      handler.error(this.failure.error);
      return;
    }
    if (this.ended) {
      this.closed = true;
      handler.end();
      return;
    }
    if (this.attached) {
      this.stream.resume();
      return;
    }
    this.attached = true;
    this.stream.on('data', (chunk: Buffer | string) => {
      if (this.closed) return;
      if (this.paused) this.queued.push(toBuffer(chunk));
      else this.handler!.data(toBuffer(chunk));
    });
    this.stream.once('end', () => {
      if (this.closed) return;
      if (this.paused) {
        this.ended = true;
        return;
      }
      this.closed = true;
      this.handler!.end();
    });
  }

  pause(): void {
    this.paused = true;
    if (this.attached) this.stream.pause();
  }

  destroy(): void {
    if (this.closed && this.stream.destroyed) return;
    this.closed = true;
    this.queued.length = 0;
    this.stream.destroy();
  }
}

/** Any other async iterable (the mock plugin's generators, tests), pumped one chunk at a time. */
class IteratorSource implements ChunkSource {
  private readonly iterator: AsyncIterator<Uint8Array | string>;
  private handler: ChunkHandler | undefined;
  private paused = true;
  private pumping = false;
  private closed = false;
  private held: Buffer | undefined;

  constructor(body: AsyncIterable<Uint8Array | string>) {
    this.iterator = body[Symbol.asyncIterator]();
  }

  resume(handler: ChunkHandler): void {
    if (this.closed) return;
    this.handler = handler;
    this.paused = false;
    if (!this.pumping) void this.pump();
  }

  pause(): void {
    this.paused = true;
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    Promise.resolve()
      .then(() => this.iterator.return?.())
      .catch(() => undefined);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      if (this.held) {
        const held = this.held;
        this.held = undefined;
        this.handler!.data(held);
      }
      while (!this.paused && !this.closed) {
        const next = await this.iterator.next();
        if (this.closed) return;
        if (next.done) {
          this.closed = true;
          this.handler!.end();
          return;
        }
        const chunk = toBuffer(next.value);
        if (this.paused) {
          this.held = chunk;
          return;
        }
        this.handler!.data(chunk);
      }
    } catch (error) {
      if (this.closed) return;
      this.closed = true;
      this.handler!.error(error);
    } finally {
      this.pumping = false;
    }
  }
}

/** The callback view of any upstream body: undici's (already a source), a Node stream, or an async iterable. */
export function chunkSourceOf(body: AsyncIterable<Uint8Array | string>): ChunkSource {
  if (body instanceof UpstreamBody) return body;
  return body instanceof Readable ? new ReadableSource(body) : new IteratorSource(body);
}
