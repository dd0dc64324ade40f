import type { Store } from '../store/index.ts';
import { startPeriodicSweep, type Clock, type Logger } from '../util/index.ts';

/** How long a stored Response is kept (OpenAI's default retention for `store: true`). */
export const RESPONSE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes stored Responses older than the retention, once at start and then every
 * `intervalMs` (an unref'd timer; one instance per interval when the store is shared);
 * returns a function that stops it (and waits for the run under way).
 */
export function startResponsesExpiry(options: { store: Store; clock: Clock; log: Logger; intervalMs?: number }): () => Promise<void> {
  const store = options.store;
  return startPeriodicSweep({
    name: 'responses-expiry',
    everyMs: options.intervalMs ?? 60 * 60 * 1000,
    claim: store.claimJob?.bind(store),
    sweep: () => store.responses.purgeCreatedBefore(options.clock.now() - RESPONSE_RETENTION_MS),
    log: options.log,
    done: 'stored responses: deleted those past 30 days',
    failed: 'stored responses: expiry failed',
  });
}
