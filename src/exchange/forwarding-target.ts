import type { StreamTarget } from '../pipeline/index.ts';

/**
 * A stream target wrapping another: what it does not change (drain, close, hold, abort) goes
 * straight to the one it wraps. The held end of an answer (hold-end.ts) and its costed usage
 * (report-cost.ts) are such wrappers.
 */
export abstract class ForwardingTarget implements StreamTarget {
  constructor(protected readonly inner: StreamTarget) {}

  abstract write(chunk: string | Uint8Array): boolean;

  abstract end(chunk?: string | Uint8Array, apart?: string): void;

  onDrain(listener: () => void): void {
    this.inner.onDrain(listener);
  }

  onClose(listener: () => void): void {
    this.inner.onClose(listener);
  }

  hold(): void {
    this.inner.hold?.();
  }

  abort(): void {
    this.inner.abort?.();
  }

  /** Ends the wrapped target, with `apart` only when there is one (as the target was called). */
  protected endInner(chunk: string | Uint8Array | undefined, apart: string | undefined): void {
    if (apart === undefined) this.inner.end(chunk);
    else this.inner.end(chunk, apart);
  }
}
