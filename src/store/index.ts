export {
  FileStore,
  FileDb,
  FileMediaRepo,
  FileResponsesRepo,
  RecordLog,
  LogShapeError,
  UsageLedger,
  forEachLedgerEntry,
  ledgerFileOf,
  readLedger,
  readLedgerPage,
  scanLedger,
  SettlementOutbox,
  unsentSettlements,
  type FileStoreOptions,
  type FileStoreReport,
  type LogEntry,
  type RecordLogReport,
  type LedgerEntry,
  type NewLedgerEntry,
  type OpenLedgerOptions,
  type LedgerPage,
  type LedgerPageQuery,
  type OutboxLine,
  type NewOutboxLine,
  type SettlementOutboxOptions,
} from './file/index.ts';
export { SCHEMA_VERSION, migrate, emptyDb, DbShapeError } from './migrate.ts';
export { backupFile, listBackups } from './backup-file.ts';
export { stringifyRecord } from './stringify-record.ts';
export { acquireLock, readServerInfo, writeServerInfo, removeServerInfo, lockHolder, lockHolderName, type ServerInfo, type DataDirLock } from './data-dir.ts';
export type { AccountsRepo, KeysRepo, SessionsRepo, MediaRepo, MediaQuery, ResponsesRepo, ConversationsRepo, Store, StoreCache, FilesRepo, FilesQuery, UploadsRepo, UploadSession, BatchesRepo, BatchesQuery, Page, CreditsRepo, CreditState, HoldRequest, HoldOutcome, SettleRequest, SettleOutcome } from './repositories.ts';
export type * from './types.ts';
export { openStore, type OpenStoreOptions } from './open-store.ts';
export { reportStoreOpening } from './report-store-opening.ts';
export { EmailTakenError, isEmailTakenError } from './email-taken.ts';
export { StorageHealth, dataDirUnwritable, recordNotWritten, type StorageState } from './storage-health.ts';
export { PostgresStore, PostgresStoreError, isPostgresStoreError, describePostgresUrl, PG_SCHEMA_VERSION, type PostgresStoreOptions, type PostgresStoreReport } from './postgres/index.ts';
export { databaseUnavailable, failedBeforeSending, isDatabaseUnreachable } from './postgres/index.ts';
export { countDataDir } from './count-data-dir.ts';
export { readInstanceId } from './data-dir.ts';
export { describeServiceUrl } from './describe-url.ts';
export { MIGRATED_MARKER, markMigrated } from './migrated-marker.ts';
export { applyMigrations, checkReachable, createPool, readSchemaVersion } from './postgres/connect.ts';
export { copyFileStore, copyLedger, countPostgresLedger, countPostgresRecords, nonEmptyTables, postgresBalances, roundMicro, type RecordCounts } from './postgres/copy-records.ts';
export type { FlushItem } from './repositories.ts';
export { isFileExpired } from './file-expiry.ts';
