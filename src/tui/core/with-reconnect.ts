import { errorCode, httpStatusOf } from './describe-error.ts';
import type { TuiAdminApi } from './types.ts';

/**
 * True when a call never ran on the server: nothing listens (ECONNREFUSED) or a restarted
 * server refused the old admin token (401). Only then is a retry safe for a mutation; a
 * reset mid-request may have been applied, so it is not retried.
 */
export function isStaleConnection(error: unknown): boolean {
  return errorCode(error) === 'ECONNREFUSED' || httpStatusOf(error) === 401;
}

/**
 * Wraps `initial` so a call that failed on a stale connection asks `reconnect` for a fresh
 * API (a restarted server writes a new URL and admin token) and retries once with it.
 * Concurrent failures share one reconnect; `reconnect` answers undefined when no server is back.
 */
export function withReconnect(initial: TuiAdminApi, reconnect: () => Promise<TuiAdminApi | undefined>): TuiAdminApi {
  let current = initial;
  let pending: Promise<TuiAdminApi | undefined> | undefined;
  const refresh = (stale: TuiAdminApi) => {
    if (current !== stale) return Promise.resolve(current);
    pending ??= reconnect()
      .then((next) => {
        if (next) current = next;
        return next;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  const wrapped: Record<string, unknown> = {};
  for (const name of Object.keys(initial) as Array<keyof TuiAdminApi>) {
    if (typeof initial[name] !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      const used = current;
      const call = (api: TuiAdminApi) => (api[name] as (...a: unknown[]) => Promise<unknown>)(...args);
      try {
        return await call(used);
      } catch (error) {
        if (!isStaleConnection(error)) throw error;
        const next = await refresh(used).catch(() => undefined);
        if (!next || next === used) throw error;
        return call(next);
      }
    };
  }
  return wrapped as unknown as TuiAdminApi;
}
