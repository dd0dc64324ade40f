import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { openLedgerAndReplay } from '../../credits/index.ts';
import { countDataDir } from '../../store/index.ts';
import { acquireLock, lockHolder, readServerInfo, type DataDirLock } from '../../store/index.ts';
import { FileStore } from '../../store/index.ts';
import { SCHEMA_VERSION } from '../../store/index.ts';
import { applyMigrations, checkReachable, createPool, describePostgresUrl, isPostgresStoreError, readSchemaVersion } from '../../store/index.ts';
import { copyFileStore, copyLedger, countPostgresLedger, countPostgresRecords, nonEmptyTables, postgresBalances, roundMicro, type RecordCounts } from '../../store/index.ts';
import { PG_SCHEMA_VERSION } from '../../store/index.ts';
import { forEachLedgerEntry, ledgerFileOf, type LedgerEntry } from '../../store/index.ts';
import { createLogger } from '../../util/index.ts';
import { resolveContext } from '../context.ts';
import { print, printJson } from '../format-table.ts';
import { CliError } from '../run-action.ts';
import { markMigrated, MIGRATED_MARKER } from '../../store/index.ts';

/** The kinds a summary shows, in order, with their labels. */
const KINDS: ReadonlyArray<[keyof RecordCounts | 'usage', string]> = [
  ['accounts', 'accounts'],
  ['keys', 'API keys'],
  ['sessions', 'sessions'],
  ['usage', 'usage ledger entries'],
  ['media', 'Media Library records'],
  ['responses', 'stored responses'],
  ['conversations', 'conversations'],
  ['files', 'files'],
  ['batches', 'batches'],
  ['batchLines', 'batch lines in progress'],
];

/** `usage`: entries of the usage ledger; null where the backend keeps none (yet). */
type Counts = RecordCounts & { usage: number | null };

function summaryLines(counts: Counts): string[] {
  const width = Math.max(...KINDS.map(([, label]) => label.length));
  return KINDS.filter(([kind]) => counts[kind] !== null).map(([kind, label]) => {
    let line = `  ${label.padEnd(width)}  ${counts[kind]}`;
    if (kind === 'accounts') line += `  (${counts.credits} credits in all)`;
    if (kind === 'files') line += `  (${counts.fileBytes} bytes)`;
    return line;
  });
}

/** Error texts of the driver can quote the URL: the password never leaves this process. */
function withoutPassword(url: string, message: string): string {
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password) return message.split(password).join('***');
  } catch {
    // not a URL: nothing to hide
  }
  return message;
}

function checkPostgresUrl(url: string, flag: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`${flag} must be a PostgreSQL URL like postgres://user@host:5432/gateway`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new CliError(`${flag} must be a postgres:// or postgresql:// URL, got ${parsed.protocol}//…`);
}

/** Takes the data dir for the copy: a server on it must be stopped first (its records and ledger move while it runs). */
async function lockForMigration(dataDir: string): Promise<DataDirLock> {
  const stopFirst = (pid: number | undefined) =>
    new CliError(`a gateway${pid ? ` (pid ${pid})` : ''} is using the data dir ${dataDir}; stop it first (the copy must see every record at rest), then run \`gateway store migrate\` again`);
  const server = readServerInfo(dataDir);
  if (server) throw stopFirst(server.pid);
  const holder = lockHolder(dataDir);
  if (holder !== undefined) throw stopFirst(holder);
  try {
    return await acquireLock(dataDir, 0, 'gateway store migrate');
  } catch {
    throw stopFirst(lockHolder(dataDir));
  }
}

/**
 * `gateway store migrate --to <url>`: copies the data dir into an empty PostgreSQL database
 * (schema first), checks every count and balance inside the copy's transaction and commits
 * only when they match, so a failed run leaves the database without records. The data dir
 * is left as it was (its ledger replayed into the balances, as the next start would do).
 */
export async function migrateStoreCommand(cmd: Command, opts: { to: string; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const url = opts.to;
  checkPostgresUrl(url, '--to');
  const where = describePostgresUrl(url);
  const dataDir = ctx.dataDir;
  if (!fs.existsSync(path.join(dataDir, 'db.json'))) throw new CliError(`no gateway data in ${dataDir} (db.json not found); pass the data dir to copy with --data-dir`);
  const lock = await lockForMigration(dataDir);
  const log = createLogger('warn');
  let store: FileStore | undefined;
  const pool = createPool(url, { max: 1 });
  try {
    store = await FileStore.open(dataDir, { warn: (message, fields) => log.warn(message, fields) });
    // Balances in db.json may lag the ledger (written in batches): bring them up to it first.
    const { ledger } = await openLedgerAndReplay(store, dataDir, { syncIntervalMs: 0 });
    await ledger.close();
    await store.flush();
    const ledgerLines: LedgerEntry[] = [];
    forEachLedgerEntry(ledgerFileOf(dataDir), (entry) => ledgerLines.push(entry));

    await checkReachable(pool, url);
    const client = await pool.connect();
    try {
      const version = await readSchemaVersion(client);
      if (version > PG_SCHEMA_VERSION) throw new CliError(`the PostgreSQL schema at ${where} is version ${version}, newer than this gateway's ${PG_SCHEMA_VERSION}; upgrade the gateway`);
      const busy = await nonEmptyTables(client);
      if (busy.length > 0) {
        throw new CliError(`${where} is not empty (${busy.map((t) => `${t.table}: ${t.rows} rows`).join(', ')}); migrate only into an empty database`);
      }
    } finally {
      client.release();
    }
    const applied = await applyMigrations(pool, url);

    const tx = await pool.connect();
    let source: RecordCounts;
    let target: RecordCounts;
    let usage: number;
    try {
      await tx.query('begin');
      source = await copyFileStore(store, tx);
      const ledgerCopied = await copyLedger(tx, ledgerLines);
      target = await countPostgresRecords(tx);
      const mismatch = compare(source, target);
      const ledgerThere = await countPostgresLedger(tx);
      usage = ledgerThere?.entries ?? 0;
      if (!ledgerThere || ledgerThere.entries !== ledgerCopied.entries || ledgerThere.charged !== ledgerCopied.charged) {
        mismatch.push(`usage ledger: ${ledgerCopied.entries} entries (${ledgerCopied.charged} credits charged) in the data dir, ${ledgerThere?.entries ?? 0} (${ledgerThere?.charged ?? 0}) in the database`);
      }
      const balances = await postgresBalances(tx);
      for (const account of store.db.data.accounts) {
        const copied = balances.get(account.id);
        if (copied === undefined || roundMicro(copied) !== roundMicro(account.credits)) {
          mismatch.push(`the balance of account ${account.email} is ${account.credits} in the data dir, ${copied ?? 'missing'} in the database`);
        }
      }
      if (mismatch.length > 0) throw new CliError(`verification failed, nothing was committed: ${mismatch.join('; ')}`);
      await tx.query('commit');
    } catch (error) {
      await tx.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      tx.release();
    }

    await markMigrated(dataDir, where, Date.now());
    const counts: Counts = { ...target, usage };
    if (opts.json) {
      printJson({ from: dataDir, to: where, schema: PG_SCHEMA_VERSION, applied, counts, verified: true });
      return;
    }
    print(`Copied ${dataDir} to ${where} (schema version ${PG_SCHEMA_VERSION}):`);
    for (const line of summaryLines(counts)) print(line);
    print('verified: every count and balance matches the data dir');
    print(`Next: set store: { postgres: '<this URL>' } in the config and start the gateway. The data dir is left as it was (marked ${MIGRATED_MARKER}: the file store refuses it from now on); keep a copy as a backup.`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (isPostgresStoreError(error)) throw new CliError(message.replace(/^store: /, '').replace('check store.postgres', 'check --to'));
    throw new CliError(`store migrate to ${where} failed: ${withoutPassword(url, message)}`);
  } finally {
    await store?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    lock.release();
  }
}

/** What differs between the data dir and the database, one phrase per kind. */
function compare(source: RecordCounts, target: RecordCounts): string[] {
  const out: string[] = [];
  for (const kind of Object.keys(source) as Array<keyof RecordCounts>) {
    const a = kind === 'credits' ? roundMicro(source[kind]) : source[kind];
    const b = kind === 'credits' ? roundMicro(target[kind]) : target[kind];
    if (a !== b) out.push(`${kind}: ${a} in the data dir, ${b} in the database`);
  }
  return out;
}

type SchemaStatus = 'current' | 'older' | 'newer' | 'none';

function schemaStatus(version: number, expected: number): SchemaStatus {
  if (version === 0) return 'none';
  return version === expected ? 'current' : version < expected ? 'older' : 'newer';
}

const STATUS_TEXT: Record<SchemaStatus, string> = {
  current: 'current',
  older: 'older than this gateway: the next start migrates it',
  newer: 'NEWER than this gateway: upgrade the gateway to use it',
  none: 'no gateway data yet: the first start creates it',
};

/**
 * `gateway store check`: the backend the config names (or `--url`), its schema version
 * against this code's, and what it holds per record kind. Reads only: safe beside running
 * servers; never migrates. Exit 1 when the store cannot be read or is newer than the code.
 */
export async function checkStoreCommand(cmd: Command, opts: { url?: string; json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const url = opts.url ?? ctx.config.store?.postgres;
  let report: { backend: 'file' | 'postgres'; location: string; schema: { version: number; expected: number; status: SchemaStatus }; counts: Counts };
  if (url) {
    if (opts.url) checkPostgresUrl(url, '--url');
    const where = describePostgresUrl(url);
    const pool = createPool(url, { max: 1 });
    try {
      await checkReachable(pool, url);
      const version = await readSchemaVersion(pool);
      const counts = await countPostgresRecords(pool);
      const ledger = await countPostgresLedger(pool);
      report = { backend: 'postgres', location: where, schema: { version, expected: PG_SCHEMA_VERSION, status: schemaStatus(version, PG_SCHEMA_VERSION) }, counts: { ...counts, usage: ledger?.entries ?? null } };
    } catch (error) {
      if (error instanceof CliError) throw error;
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      if (isPostgresStoreError(error)) throw new CliError(opts.url ? message.replace(/^store: /, '').replace('check store.postgres', 'check --url') : message);
      throw new CliError(`cannot read ${where}: ${withoutPassword(url, message)}`);
    } finally {
      await pool.end().catch(() => undefined);
    }
  } else {
    const { schemaVersion, counts } = countDataDir(ctx.dataDir);
    let usage = 0;
    forEachLedgerEntry(ledgerFileOf(ctx.dataDir), () => (usage += 1));
    report = { backend: 'file', location: ctx.dataDir, schema: { version: schemaVersion, expected: SCHEMA_VERSION, status: schemaStatus(schemaVersion, SCHEMA_VERSION) }, counts: { ...counts, usage } };
  }
  if (report.schema.status === 'newer') process.exitCode = 1;
  if (opts.json) return printJson(report);
  print(`backend  ${report.backend === 'file' ? 'file store' : 'PostgreSQL'} at ${report.location}`);
  print(`schema   version ${report.schema.version} (${STATUS_TEXT[report.schema.status]}; this gateway: ${report.schema.expected})`);
  for (const line of summaryLines(report.counts)) print(line);
}
