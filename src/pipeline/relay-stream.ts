import type { ChunkHandler } from './chunk-source.ts';
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
function pushRelay(relay: RecordRelay, peeked: PeekedStream, target: StreamTarget): void {
  const { source } = peeked;
  /** Writes; false when the target is full and the upstream waits for its drain. */
  const write = (out: RelayOutput): boolean => {
    if (relay.complete) target.hold?.();
    if (target.write(out)) return true;
    source.pause();
    target.onDrain(() => {
      if (!relay.done) source.resume(handler);
    });
    return false;
  };
  const handler: ChunkHandler = {
    data(chunk) {
      const out = relay.push(chunk);
      if (relay.done) {
        source.destroy();
        target.end(out);
      } else if (!isEmpty(out)) write(out);
    },
    end() {
      target.end(relay.end());
    },
    error(error) {
      target.end(relay.fail(error));
    },
  };
  target.onClose(() => {
    if (relay.done) return;
    relay.close();
    source.destroy();
  });
  const head = relay.start(peeked.head.bytes, peeked.head.records);
  if (relay.done) {
    source.destroy();
    target.end(head);
    return;
  }
  if (peeked.ended) {
    const last = relay.end();
    if (isEmpty(head)) target.end(last);
    else if (isEmpty(last)) target.end(head);
    else {
      target.write(head);
      target.end(last);
    }
    return;
  }
  if (!isEmpty(head) && !write(head)) return; // resumed on drain
  source.resume(handler);
}

/** An in-memory target behind the iterator view (tests, the Responses store, non-Node hosts). */
function iterate(start: (target: StreamTarget) => void): AsyncIterator<string | Uint8Array> {
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
    end(chunk) {
      if (chunk !== undefined && chunk.length > 0) queue.push(chunk);
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

/**
 * Relays a peeked upstream SSE body to the client (see RecordRelay for what happens to each
 * record). The result is pushed into the HTTP response by callbacks, or iterated.
 */
export function relayStream(options: RelayOptions, peeked: PeekedStream): RelayedStream {
  const relay = new RecordRelay(options, peeked.reader);
  let used = false;
  const claim = () => {
    if (used) throw new Error('a relayed stream is read once');
    used = true;
  };
  return {
    pushTo(target) {
      claim();
      pushRelay(relay, peeked, target);
    },
    [Symbol.asyncIterator]() {
      claim();
      return iterate((target) => pushRelay(relay, peeked, target));
    },
  };
}
