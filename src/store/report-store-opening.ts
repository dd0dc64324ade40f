import type { Logger } from '../util/index.ts';
import { FileStore } from './file/file-store.ts';
import type { PostgresStore } from './postgres/postgres-store.ts';

/** Says at start-up what opening the store did or found: a migration, media lines kept aside. */
export function reportStoreOpening(store: FileStore | PostgresStore, log: Pick<Logger, 'info' | 'warn'>): void {
  if (!(store instanceof FileStore)) {
    if (store.report.migrated.length > 0) log.info(`store: PostgreSQL at ${store.report.database} migrated to schema version ${store.report.migrated.at(-1)}`);
    return;
  }
  const report = store.report;
  if (report.migratedFrom !== undefined && report.backup) {
    log.info('data dir migrated to the current schema', { from: report.migratedFrom, backup: report.backup });
  }
  const rejected = report.media.rejected;
  if (rejected.length > 0) {
    log.warn('media.jsonl: lines that could not be read were kept aside in media.rejected.jsonl', {
      count: rejected.length,
      lines: rejected.map((r) => (r.torn ? 'torn last line' : r.line)).slice(0, 20),
    });
  }
}
