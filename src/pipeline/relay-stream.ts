import type { ChunkHandler } from '../upstream/index.ts';
import type { PeekedStream } from './peek-stream.ts';
import { RecordRelay, type RelayOptions, type RelayOutput } from './relay-records.ts';
import type { RelayedStream, StreamTarget } from './types.ts';

export type { StreamEnd } from './relay-records.ts';

function isEmpty(out: RelayOutput | undefined): out is undefined {
  return out === undefined || out.length === 0;
}

/**
 * Drives a relay from the upstream's callbacks into a target: each upstream chunk is read,
 * checked and written in the same call, backpressure pauses the upstream, the client leaving
 * stops it, and the last records go out in one write with the end of the response.
 */
class RelayPush implements ChunkHandler {
  constructor(
    private readonly relay: RecordRelay,
    private readonly peeked: PeekedStream,
    private readonly target: StreamTarget,
  ) {}

  start(): void {
    const { relay, peeked, target } = this;
    target.onClose(() => {
      if (relay.done) return;
      relay.close();
      peeked.source.destroy();
    });
    const head = relay.start(peeked.head.bytes, peeked.head.records);
    if (relay.done) {
      peeked.source.destroy();
      this.close(head);
      return;
    }
    if (peeked.ended) {
      const last = relay.end();
      if (isEmpty(head)) this.close(last);
      else if (isEmpty(last)) this.close(head);
      else {
        target.write(head);
        this.close(last);
      }
      return;
    }
    if (!isEmpty(head) && !this.write(head)) return; // resumed on drain
    peeked.source.resume(this);
  }

  data(chunk: Buffer): void {
    const out = this.relay.push(chunk);
    if (this.relay.done) {
      this.peeked.source.destroy();
      this.close(out);
    } else if (!isEmpty(out)) this.write(out);
  }

  end(): void {
    this.close(this.relay.end());
  }

  error(error: unknown): void {
    this.close(this.relay.fail(error));
  }

  /** Ends the target with the relay's last output, and what its framing sends apart. */
  private close(out: RelayOutput | undefined): void {
    const apart = this.relay.apart();
    if (apart === undefined) this.target.end(out);
    else this.target.end(out, apart);
  }

  /** Writes; false when the target is full and the upstream waits for its drain. */
  private write(out: RelayOutput): boolean {
    if (this.relay.complete) this.target.hold?.();
    if (this.target.write(out)) return true;
    this.peeked.source.pause();
    this.target.onDrain(() => {
      if (!this.relay.done) this.peeked.source.resume(this);
    });
    return false;
  }
}

/** An in-memory target behind the iterator view of a pushed stream (tests, a stream started only to be stopped). */
export function iterateTarget(start: (target: StreamTarget) => void): AsyncIterator<string | Uint8Array> {
  const queue: Array<string | Uint8Array> = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let drain: (() => void) | undefined;
  let close: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  start({
    write(chunk) {
      if (chunk.length > 0) queue.push(chunk);
      notify();
      return queue.length === 0;
    },
    end(chunk, apart) {
      if (chunk !== undefined && chunk.length > 0) queue.push(chunk);
      if (apart) queue.push(apart);
      ended = true;
      notify();
    },
    onDrain(listener) {
      drain = listener;
    },
    onClose(listener) {
      close = listener;
    },
  });
  return {
    async next(): Promise<IteratorResult<string | Uint8Array>> {
      for (;;) {
        if (queue.length > 0) return { value: queue.shift()!, done: false };
        if (ended) return { value: undefined, done: true };
        const waiting = new Promise<void>((resolve) => (wake = resolve));
        const d = drain;
        drain = undefined;
        d?.();
        await waiting;
      }
    },
    async return(): Promise<IteratorResult<string | Uint8Array>> {
      if (!ended) {
        ended = true;
        queue.length = 0;
        close?.();
      }
      return { value: undefined, done: true };
    },
  };
}

class Relayed implements RelayedStream {
  private used = false;

  constructor(
    private readonly relay: RecordRelay,
    private readonly peeked: PeekedStream,
  ) {}

  pushTo(target: StreamTarget): void {
    this.claim();
    new RelayPush(this.relay, this.peeked, target).start();
  }

  [Symbol.asyncIterator](): AsyncIterator<string | Uint8Array> {
    this.claim();
    return iterateTarget((target) => new RelayPush(this.relay, this.peeked, target).start());
  }

  private claim(): void {
    if (this.used) throw new Error('a relayed stream is read once');
    this.used = true;
  }
}

/**
 * Relays a peeked upstream SSE body to the client (see RecordRelay for what happens to each
 * record). The result is pushed into the HTTP response by callbacks, or iterated.
 */
export function relayStream(options: RelayOptions, peeked: PeekedStream): RelayedStream {
  return new Relayed(new RecordRelay(options, peeked.reader), peeked);
}
