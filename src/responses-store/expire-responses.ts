import type { Store } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';

/** How long a stored Response is kept (OpenAI's default retention for `store: true`). */
export const RESPONSE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes stored Responses older than the retention, once at start and then every
 * `intervalMs` (an unref'd timer; one instance per interval when the store is shared);
 * returns a function that stops it.
 */
export function startResponsesExpiry(options: { store: Store; clock: Clock; log: Logger; intervalMs?: number }): () => void {
  const everyMs = options.intervalMs ?? 60 * 60 * 1000;
  const store = options.store;
  const purge = () => {
    // With a shared database one instance per interval deletes them.
    (store.claimJob ? store.claimJob('responses-expiry', everyMs * 0.9) : Promise.resolve(true))
      .then((mine) => (mine ? store.responses.purgeCreatedBefore(options.clock.now() - RESPONSE_RETENTION_MS) : 0))
      .then((removed) => {
        if (removed > 0) options.log.info('stored responses: deleted those past 30 days', { removed });
      })
      .catch((error: unknown) => options.log.warn('stored responses: expiry failed', { error: String(error) }));
  };
  purge();
  const timer = setInterval(purge, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
