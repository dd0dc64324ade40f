/**
 * Abort signals that cost little when nobody aborts. On Node 20 an AbortSignal costs a few
 * µs to create and one `addEventListener` on it about 2.7 µs; every request used to create
 * two and add four listeners (the upstream call on the client's signal, undici on the
 * upstream's). A FastAbortController makes its AbortSignal only when someone asks for it,
 * and takes listeners in a plain array; code that knows it listens through `listen`.
 */

type Listener = () => void;

/** What the request path needs of an abort: has it fired, hear it fire, and a real signal on demand. */
export interface AbortWatch {
  readonly aborted: boolean;
  /** Why it fired (undefined before). */
  readonly reason: unknown;
  /** The AbortSignal (made on first use). */
  readonly signal: AbortSignal;
  /** Calls `listener` once when it fires later; returns the remover. */
  listen(listener: Listener): () => void;
}

const OWNER = Symbol('gateway.abortOwner');

type OwnedSignal = AbortSignal & { [OWNER]?: FastAbortController };

/** An abort controller with a lazy AbortSignal and cheap listeners. */
export class FastAbortController implements AbortWatch {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;
  /** The first listener; most watches have one and no more, so they need no array. */
  private first: Listener | undefined;
  /** Listeners added while `first` (or an earlier one) was still there, in order. */
  private more: Listener[] | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      (this.controller.signal as OwnedSignal)[OWNER] = this;
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.controller?.abort(this.reason);
    const first = this.first;
    const more = this.more;
    this.first = this.more = undefined;
    first?.();
    if (more) for (const listener of more) listener();
  }

  listen(listener: Listener): () => void {
    if (this.first === undefined && this.more === undefined) this.first = listener;
    else (this.more ??= []).push(listener);
    return () => this.unlisten(listener);
  }

  unlisten(listener: Listener): void {
    if (this.first === listener) {
      this.first = undefined;
      return;
    }
    const more = this.more;
    const at = more ? more.indexOf(listener) : -1;
    if (at === -1) return;
    // The last one (listeners usually leave in reverse order) without splice's array of what it removed.
    if (at === more!.length - 1) more!.pop();
    else more!.splice(at, 1);
  }
}

/** Any AbortSignal seen as an AbortWatch. */
class SignalWatch implements AbortWatch {
  constructor(readonly signal: AbortSignal) {}

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get reason(): unknown {
    return this.signal.reason;
  }

  listen(listener: Listener): () => void {
    const signal = this.signal;
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  }
}

/** The watch behind a signal: its FastAbortController when it has one. */
export function watchOf(signal: AbortSignal): AbortWatch {
  return (signal as OwnedSignal)[OWNER] ?? new SignalWatch(signal);
}

/** Calls `listener` once when `signal` aborts later; returns the remover. */
export function onAbort(signal: AbortSignal, listener: Listener): () => void {
  return watchOf(signal).listen(listener);
}

const WATCH = Symbol.for('gateway.abortWatch');

/** Anything whose abort should stop a request: a call object, whose `signal` may be made only when read. */
export interface AbortSource {
  readonly signal: AbortSignal;
}

/** Marks `source` (a call the gateway builds) with the cheap watch behind its lazy `signal`. */
export function attachAbortWatch<T extends object>(source: T, watch: AbortWatch): T {
  (source as { [WATCH]?: AbortWatch })[WATCH] = watch;
  return source;
}

/** The watch of an abort source: the gateway's own (no AbortSignal made), else a watch of its signal. */
export function abortWatchOf(source: AbortSource): AbortWatch {
  return (source as { [WATCH]?: AbortWatch })[WATCH] ?? watchOf(source.signal);
}
