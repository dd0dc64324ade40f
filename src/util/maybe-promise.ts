/**
 * A value now, or later: what a port answers when an in-process implementation can answer at
 * once and a networked one (Redis, PostgreSQL) cannot. One method per operation, no `fooNow` twin.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Whether an answer comes later (any thenable). */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * `fn` of the answer (not named `then`: a module exporting `then` is itself a thenable to
 * `await import()`): called at once for a plain value (no promise, no microtask; what `fn`
 * throws is thrown), after it resolves for a promise (what `fn` throws rejects).
 */
export function andThen<T, R>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromise(value) ? value.then(fn) : fn(value);
}
