export { PostgresStore, type PostgresStoreOptions, type PostgresStoreReport } from './postgres-store.ts';
export { PostgresStoreError, isPostgresStoreError, describePostgresUrl, applyMigrations, readSchemaVersion, createPool, checkReachable } from './connect.ts';
export { databaseUnavailable, failedBeforeSending, isDatabaseUnreachable } from './unreachable.ts';
export { MIGRATIONS, PG_SCHEMA_VERSION, type Migration } from './migrations.ts';
