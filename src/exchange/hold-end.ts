import { iterateTarget, type RelayedStream, type StreamTarget } from '../pipeline/index.ts';
import { ForwardingTarget } from './forwarding-target.ts';

/**
 * What the end of an answer waits for right now, if anything: the write of its stored copy (a
 * Responses answer), the group write of its usage ledger line. Each clears itself when done.
 */
export type PendingRecord = () => Promise<unknown> | undefined;

/** The bytes ending a stream whose pending record failed with `error`, for a failure the client is told of; undefined: the stream is cut. */
export type FailureBytes = (error: unknown) => string | Uint8Array | undefined;

/**
 * A stream target that holds what comes while something is pending (the terminal records,
 * the end) until it is done, so a client never sees the end of an answer whose records are
 * not written yet. Nothing pending: every call goes straight through.
 */
class HeldEndTarget extends ForwardingTarget {
  private held: Array<string | Uint8Array> = [];
  private ending: { chunk?: string | Uint8Array; apart?: string } | undefined;
  private waiting = false;
  /** The records could not be written: nothing more goes out. */
  private failed = false;
  /** The last promise waited for (it may still be what `pending` returns for a moment). */
  private awaited: Promise<unknown> | undefined;

  constructor(
    inner: StreamTarget,
    private readonly pending: PendingRecord,
    private readonly failure?: FailureBytes,
  ) {
    super(inner);
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.failed) return true;
    if (this.gate()) {
      this.held.push(chunk);
      return true;
    }
    return this.inner.write(chunk);
  }

  end(chunk?: string | Uint8Array, apart?: string): void {
    if (this.failed) return;
    if (this.gate()) this.ending = { chunk, apart };
    else this.endInner(chunk, apart);
  }

  /** True while output must wait (and arranges the release). */
  private gate(): boolean {
    if (this.waiting) return true;
    const waiting = this.pending();
    if (!waiting || waiting === this.awaited) return false;
    this.waiting = true;
    const release = () => this.release(waiting);
    void waiting.then(release, (error: unknown) => this.fail(error));
    return true;
  }

  /**
   * Its records could not be written: what was held never goes out, and the response is cut (no
   * whole answer without its record); or, for a failure the client is told of (`failure`), it ends
   * with that error's records in place of what was held.
   */
  private fail(error: unknown): void {
    this.failed = true;
    this.held = [];
    this.ending = undefined;
    const told = this.failure?.(error);
    if (told !== undefined) this.inner.end(told);
    else if (this.inner.abort) this.inner.abort();
    else this.inner.end();
  }

  private release(done: Promise<unknown>): void {
    this.waiting = false;
    this.awaited = done;
    const held = this.held;
    const ending = this.ending;
    this.held = [];
    this.ending = undefined;
    // Something else may be pending by now: write() and end() hold again.
    for (const chunk of held) this.write(chunk);
    if (ending) this.end(ending.chunk, ending.apart);
  }
}

/**
 * A stream whose end is held (a class: an object literal with a computed `[Symbol.asyncIterator]`
 * key is built property by property at run time, ~0.4 µs per stream against ~0.02 µs).
 */
class HeldStream implements RelayedStream {
  constructor(
    private readonly stream: RelayedStream,
    private readonly pending: PendingRecord,
    private readonly failure?: FailureBytes,
  ) {}

  pushTo(target: StreamTarget): void {
    this.stream.pushTo(new HeldEndTarget(target, this.pending, this.failure));
  }

  [Symbol.asyncIterator](): AsyncIterator<string | Uint8Array> {
    return iterateTarget((target) => this.pushTo(target));
  }
}

/** The stream, its end held while `pending` has something to wait for: pushed or iterated, the same guarantee. */
export function holdEnd(stream: RelayedStream, pending: PendingRecord, failure?: FailureBytes): RelayedStream {
  return new HeldStream(stream, pending, failure);
}
