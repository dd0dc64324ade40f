import type { DbData } from './types.ts';

/** The schema version this code writes. */
export const SCHEMA_VERSION = 1;

type Migration = (data: Record<string, unknown>) => Record<string, unknown>;

/** Migrations by the version they upgrade from: MIGRATIONS[n] turns version n into n+1. */
const MIGRATIONS: Record<number, Migration> = {
  // 0 → 1: the first versioned schema; fill any missing collection.
  0: (data) => ({ ...data, version: 1 }),
};

/** An empty database at the current version. */
export function emptyDb(): DbData {
  return { version: SCHEMA_VERSION, accounts: [], apiKeys: [], sessions: [], media: [], files: [], batches: [] };
}

/** Brings stored data up to SCHEMA_VERSION; refuses data written by a newer gateway. */
export function migrate(raw: unknown): { data: DbData; changed: boolean } {
  let data = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  let version = typeof data.version === 'number' ? data.version : 0;
  if (version > SCHEMA_VERSION) {
    throw new Error(`the data dir was written by a newer gateway (schema ${version}, this one reads ${SCHEMA_VERSION})`);
  }
  const changed = version !== SCHEMA_VERSION;
  while (version < SCHEMA_VERSION) {
    data = MIGRATIONS[version](data);
    version += 1;
  }
  const base = emptyDb();
  for (const key of Object.keys(base) as Array<keyof DbData>) {
    if (key !== 'version' && !Array.isArray(data[key])) data[key] = [];
  }
  return { data: data as unknown as DbData, changed };
}
