import type { Store } from '../store/index.ts';
import { startPeriodicSweep, type Clock, type Logger } from '../util/index.ts';

/** Files deleted per store read; a run goes on until a read names fewer. */
const PAGE = 100;
/** The most reads one run makes (a backlog is finished by the next runs). */
const MAX_PAGES = 100;

/** Deletes the files whose `expires_at` has come (Gemini uploads: 48 hours) and the uploads past their URL's hour; returns how many. */
export async function purgeExpiredFiles(store: Store, nowMs: number): Promise<number> {
  let removed = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const due = await store.files.expired(Math.floor(nowMs / 1000), PAGE);
    for (const file of due) if (await store.files.delete(file.accountId, file.id)) removed += 1;
    if (due.length < PAGE) break;
  }
  // Uploads abandoned before their last chunk: their bytes (on PostgreSQL, chunks no file points at).
  return removed + (await store.uploads.purgeExpired(nowMs));
}

/**
 * Deletes expired files (records and contents, so they leave the account's quota) once at
 * start and then every `intervalMs` (an unref'd timer; one instance per interval when the
 * store is shared); returns a function that stops it (and waits for the run under way). Between two runs an expired file is
 * already gone to its owner (isFileExpired).
 */
export function startFilesExpiry(options: { store: Store; clock: Clock; log: Logger; intervalMs?: number }): () => Promise<void> {
  const store = options.store;
  return startPeriodicSweep({
    name: 'files-expiry',
    everyMs: options.intervalMs ?? 10 * 60 * 1000,
    claim: store.claimJob?.bind(store),
    sweep: () => purgeExpiredFiles(store, options.clock.now()),
    log: options.log,
    done: 'files: deleted those past their expiration time, and abandoned uploads',
    failed: 'files: expiry failed',
  });
}
