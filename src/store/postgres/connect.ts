import { createHash } from 'node:crypto';
import type pg from 'pg';
import { hasMark, loadOnUse } from '../../util/index.ts';
import { describePostgresUrl } from '../describe-url.ts';
import { CREDIT_FUNCTIONS_SQL } from './credit-functions.ts';
import { MIGRATIONS, PG_SCHEMA_VERSION } from './migrations.ts';

export { describePostgresUrl };

const MARK = Symbol.for('gateway.postgres-store-error');

/** A start-up problem with the database, said in one line (no password). */
export class PostgresStoreError extends Error {
  override name = 'PostgresStoreError';
  readonly [MARK] = true;
}

/** True for a PostgresStoreError, recognised by its mark (other folders do not use instanceof). */
export function isPostgresStoreError(value: unknown): value is PostgresStoreError {
  return hasMark(value, MARK);
}


/** The PostgreSQL driver, read on first use: a process on the file store never reads it. */
export const pgDriver = loadOnUse<typeof pg>('pg');

const NUMERIC_OID = 1700;
const INT8_OID = 20;

/** numeric and bigint columns come back as JS numbers (credits are kept to a millionth; ms times fit). */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === NUMERIC_OID || oid === INT8_OID) return (value: string) => (value === null ? null : Number(value));
    return pgDriver().types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PoolOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Marks this instance's changes so its own announcements are skipped. */
  instanceId?: string;
  /** Longest wait for one query's answer before it fails ('Query read timeout') and its connection is dropped (default: none). */
  queryTimeoutMs?: number;
  /** Told of every connection attempt and query of the pool that fails (a request's or background work's), before its caller is. */
  failed?: (error: unknown) => void;
}

type Callback = (error: unknown, ...rest: unknown[]) => void;
type AnyCall = (...args: unknown[]) => unknown;

/**
 * Calls `original` so that `failed` hears of its failure first, whichever form it takes: a
 * trailing callback (how the pool connects and queries) or a promise (transactions).
 */
function reportFailure(original: AnyCall, args: unknown[], failed: (error: unknown) => void): unknown {
  const callback = args.at(-1);
  if (typeof callback === 'function') {
    const report: Callback = (error, ...rest) => {
      if (error) failed(error);
      (callback as Callback)(error, ...rest);
    };
    return original(...args.slice(0, -1), report);
  }
  const result = original(...args);
  if (result instanceof Promise) result.catch(failed);
  return result;
}

/** A pg.Client class whose connection attempts and queries report their failures to `failed`, then fail for their caller as before. */
function reportingClient(failed: (error: unknown) => void): typeof pg.Client {
  return class ReportingClient extends pgDriver().Client {
    // Fields, not methods: @types/pg overloads both, and every overload goes to the original.
    override connect = ((...args: unknown[]) => reportFailure(super.connect.bind(this) as AnyCall, args, failed)) as pg.Client['connect'];
    override query = ((...args: unknown[]) => reportFailure(super.query.bind(this) as AnyCall, args, failed)) as pg.Client['query'];
  };
}

/** A pool whose connections parse numbers as numbers and tag their changes with the instance id. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new (pgDriver().Pool)({
    connectionString: url,
    max: options.max ?? 10,
    types,
    connectionTimeoutMillis: 5_000,
    query_timeout: options.queryTimeoutMs,
    // A query the gateway gave up on (queryTimeoutMs) is stopped by the server too, not left to run
    // and commit for nobody (an admission's hold taken after its request was answered 503).
    options: [options.instanceId && `-c gateway.instance=${options.instanceId}`, options.queryTimeoutMs && `-c statement_timeout=${Math.ceil(options.queryTimeoutMs)}`].filter(Boolean).join(' ') || undefined,
    Client: options.failed ? reportingClient(options.failed) : undefined,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

function reason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code && !/^[0-9A-Z]{5}$/.test(e.code) ? e.code : (e.message ?? String(error)).split('\n')[0];
}

/** Connects once to fail early with one clear line when the database cannot be reached. */
export async function checkReachable(pool: pg.Pool, url: string): Promise<void> {
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    throw new PostgresStoreError(`store: PostgreSQL at ${describePostgresUrl(url)} is unreachable (${reason(error)}); check store.postgres and that the server is up`);
  }
}

const MIGRATION_LOCK = 7_427_201_001; // pg_advisory_lock key: one migrator at a time across instances

/** The schema version recorded in the database (0 when it has no gateway tables). */
export async function readSchemaVersion(client: pg.Pool | pg.PoolClient): Promise<number> {
  const exists = await client.query<{ present: boolean }>(`select to_regclass('gw_schema') is not null as present`);
  if (!exists.rows[0].present) return 0;
  const { rows } = await client.query<{ version: number | null }>('select max(version)::int as version from gw_schema');
  return rows[0].version ?? 0;
}

/**
 * Brings the schema up to this code's version under an advisory lock, so instances starting
 * together migrate once; a database whose schema is newer than the code stops with one line.
 * Returns the versions applied.
 */
export async function applyMigrations(pool: pg.Pool, url: string): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('create table if not exists gw_schema (version integer primary key, name text not null, applied_at timestamptz not null default now())');
      const current = await readSchemaVersion(client);
      if (current > PG_SCHEMA_VERSION) {
        throw new PostgresStoreError(
          `store: the PostgreSQL schema at ${describePostgresUrl(url)} is version ${current}, newer than this gateway's ${PG_SCHEMA_VERSION}; upgrade the gateway (or use another database)`,
        );
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query('begin');
        try {
          await client.query(migration.sql);
          await client.query('insert into gw_schema (version, name) values ($1, $2)', [migration.version, migration.name]);
          await client.query('commit');
        } catch (error) {
          await client.query('rollback');
          throw new PostgresStoreError(`store: PostgreSQL migration ${migration.version} (${migration.name}) failed: ${reason(error)}`);
        }
        applied.push(migration.version);
      }
      await applyRepeatable(client);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}

/** Migrations applied after the versioned ones whenever their SQL changed (Flyway's repeatable migrations): one home for each definition. */
const REPEATABLE: ReadonlyArray<{ name: string; sql: string }> = [{ name: 'credit functions', sql: CREDIT_FUNCTIONS_SQL }];

/** Applies each repeatable migration whose checksum differs from the one recorded (or none is), in a transaction of its own. */
async function applyRepeatable(client: pg.PoolClient): Promise<void> {
  await client.query('create table if not exists gw_schema_repeatable (name text primary key, checksum text not null, applied_at timestamptz not null default now())');
  for (const migration of REPEATABLE) {
    const checksum = createHash('sha256').update(migration.sql).digest('hex');
    const { rows } = await client.query<{ checksum: string }>('select checksum from gw_schema_repeatable where name = $1', [migration.name]);
    if (rows[0]?.checksum === checksum) continue;
    await client.query('begin');
    try {
      await client.query(migration.sql);
      await client.query(
        'insert into gw_schema_repeatable (name, checksum) values ($1, $2) on conflict (name) do update set checksum = excluded.checksum, applied_at = now()',
        [migration.name, checksum],
      );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw new PostgresStoreError(`store: PostgreSQL repeatable migration (${migration.name}) failed: ${reason(error)}`);
    }
  }
}
