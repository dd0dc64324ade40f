import { FileStore } from './file/file-store.ts';
import { migratedDataDirError, migratedTo } from './migrated-marker.ts';
import type { PostgresStore } from './postgres/postgres-store.ts';
import type { Store } from './repositories.ts';

export interface OpenStoreOptions {
  /** The instance's data dir (the file store's records; scratch with PostgreSQL). */
  dataDir: string;
  /** `store.postgres` from the config: every record in that database instead of the data dir. */
  postgres?: string;
  poolSize?: number;
  /** `store.synchronousCommit`: settlements wait for PostgreSQL's WAL flush. */
  synchronousCommit?: boolean;
  /** `store.queryTimeoutMs`: the longest wait for one query's answer. */
  queryTimeoutMs?: number;
  warn?: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * Opens the store the config names: PostgreSQL when `store.postgres` is set, the data dir's file
 * store otherwise. The PostgreSQL store (and its driver) is loaded only when configured, so a
 * file-store process does not carry it in memory.
 */
export async function openStore(options: OpenStoreOptions): Promise<FileStore | PostgresStore> {
  if (options.postgres) {
    const { PostgresStore } = await import('./postgres/postgres-store.ts');
    return PostgresStore.open(options.postgres, { warn: options.warn, poolSize: options.poolSize, synchronousCommit: options.synchronousCommit, queryTimeoutMs: options.queryTimeoutMs });
  }
  const moved = migratedTo(options.dataDir);
  if (moved) throw migratedDataDirError(options.dataDir, moved);
  return FileStore.open(options.dataDir, { warn: options.warn });
}

export type { Store };
