/** The file store: the embedded default (one process owns a data dir) and its append-only logs — the usage ledger, the settlement outbox, the record log. */
export { FileStore, type FileStoreOptions, type FileStoreReport } from './file-store.ts';
export { FileDb } from './file-db.ts';
export { FileMediaRepo } from './file-media-repo.ts';
export { FileResponsesRepo } from './file-responses-repo.ts';
export { RecordLog, LogShapeError, type LogEntry, type RecordLogReport } from './record-log.ts';
export { UsageLedger, forEachLedgerEntry, ledgerFileOf, readLedger, type LedgerEntry, type NewLedgerEntry, type OpenLedgerOptions } from './usage-ledger.ts';
export { readLedgerPage, type LedgerPage, type LedgerPageQuery } from './read-ledger-page.ts';
export { scanLedger } from './scan-ledger.ts';
export { SettlementOutbox, unsentSettlements, type OutboxLine, type NewOutboxLine, type SettlementOutboxOptions } from './settlement-outbox.ts';
export { syncDir } from './sliced-json-file.ts';
