export { FileStore } from './file-store.ts';
export { FileDb } from './file-db.ts';
export { SCHEMA_VERSION, migrate, emptyDb } from './migrate.ts';
export { acquireLock, readServerInfo, writeServerInfo, removeServerInfo, lockHolder, type ServerInfo, type DataDirLock } from './data-dir.ts';
export type { AccountsRepo, KeysRepo, SessionsRepo, MediaRepo, MediaQuery, Store } from './repositories.ts';
export type * from './types.ts';
