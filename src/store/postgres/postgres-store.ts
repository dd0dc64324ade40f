import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { RepeatedFailure } from '../../util/index.ts';
import { EmailTakenError } from '../email-taken.ts';
import type { AccountsRepo, KeysRepo, SessionsRepo, Store, StoreCache } from '../repositories.ts';
import type { AccountRecord, ApiKeyRecord, SessionRecord } from '../types.ts';
import { applyMigrations, checkReachable, createPool, describePostgresUrl, pgDriver } from './connect.ts';
import { DatabaseHealth } from './database-health.ts';
import { PostgresBatchesRepo } from './postgres-batches-repo.ts';
import { LEASE_CHANNEL, PostgresCreditsRepo } from './postgres-credits-repo.ts';
import { PostgresFilesRepo } from './postgres-files-repo.ts';
import { PostgresUploadsRepo } from './postgres-uploads-repo.ts';
import { PostgresMediaRepo } from './postgres-media-repo.ts';
import { PostgresResponsesRepo } from './postgres-responses-repo.ts';
import { PostgresConversationsRepo } from './postgres-conversations-repo.ts';
import {
  ACCOUNT_INSERT,
  KEY_INSERT,
  accountFromRow,
  accountParams,
  keyFromRow,
  keyParams,
  sessionFromRow,
  type AccountRow,
  type KeyRow,
  type SessionRow,
} from './rows.ts';

export interface PostgresStoreOptions {
  /** Where problems that do not stop the store go (a lost listener, a failed background write). */
  warn?: (message: string, fields?: Record<string, unknown>) => void;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Settlements and outbox flushes wait for the WAL flush (default true; see store.synchronousCommit). */
  synchronousCommit?: boolean;
  /** Longest wait for one query's answer (ms, default 30,000; see store.queryTimeoutMs). */
  queryTimeoutMs?: number;
}

/** A query the database has not answered in this long fails (503 to a request) rather than holding its caller. */
const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/** What opening the database did, for the start-up log. */
export interface PostgresStoreReport {
  /** Where (no password). */
  database: string;
  /** Migrations applied by this start. */
  migrated: number[];
}

/** How long key uses wait to be written together (a key's use is noted at most once a second: src/server/auth.ts). */
const KEY_USES_BATCH_MS = 200;
/** The channel every instance listens on (see migrations.ts, gw_announce). */
const CHANNEL = 'gateway_records';

interface Announcement {
  origin: string;
  table: 'gw_accounts' | 'gw_api_keys' | 'gw_sessions';
  op: 'insert' | 'update' | 'delete';
  row: Record<string, unknown> | null;
  id: string;
}

/** Ids whose cache entry was set or removed while a reload's snapshot was being read. */
interface ChangedSince {
  accounts: Set<string>;
  keys: Set<string>;
  sessions: Set<string>;
}

/** Patchable account fields and their columns (credits and billedSeq move through adjustCredits only). */
const ACCOUNT_COLUMNS: Partial<Record<keyof AccountRecord, string>> = {
  email: 'email',
  passwordHash: 'password_hash',
  tier: 'tier',
  monthlyTokenQuota: 'monthly_token_quota',
  suspended: 'suspended',
  rpm: 'rpm',
  createdAt: 'created_at',
  spendCap: 'spend_cap',
};

const KEY_COLUMNS: Partial<Record<keyof ApiKeyRecord, string>> = {
  name: 'name',
  preview: 'preview',
  rpm: 'rpm',
  expiresAt: 'expires_at',
  revokedAt: 'revoked_at',
  createdAt: 'created_at',
  models: 'models',
  endpoints: 'endpoints',
  limit: 'spend_limit',
  limitReset: 'limit_reset',
  lastUsedAt: 'last_used_at',
};

const JSON_COLUMNS = new Set(['models', 'endpoints']);

/** `set a = $2, b = $3` from a patch, through a column map (unknown fields are ignored). */
function setClause(patch: Record<string, unknown>, columns: Record<string, string | undefined>): { sql: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const [field, value] of Object.entries(patch)) {
    const column = columns[field];
    if (!column || value === undefined) continue;
    values.push(JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value);
    parts.push(`${column} = $${values.length + 1}`);
  }
  return { sql: parts.join(', '), values };
}

function finiteCredits(value: number, what: string): number {
  if (!Number.isFinite(value)) throw new RangeError(`${what}: credits must be a finite number, got ${value}`);
  return value;
}

/** Keeps credits to a millionth (what billing rounds to). */
function addCredits(balance: number, delta: number): number {
  return Math.round((balance + delta) * 1e6) / 1e6;
}

/**
 * Every record in PostgreSQL, shared by any number of gateway instances (docs/scale-out.md).
 * Accounts, keys and sessions are held in memory (the request path reads them synchronously)
 * and kept current from the other instances' announcements (LISTEN/NOTIFY); a row's version
 * decides which of two views is newer.
 */
export class PostgresStore implements Store {
  readonly cache: StoreCache;
  readonly accounts: AccountsRepo;
  readonly keys: KeysRepo;
  readonly sessions: SessionsRepo;
  readonly media: PostgresMediaRepo;
  readonly responses: PostgresResponsesRepo;
  readonly conversations: PostgresConversationsRepo;
  readonly files: PostgresFilesRepo;
  readonly uploads: PostgresUploadsRepo;
  readonly batches: PostgresBatchesRepo;
  readonly credits: PostgresCreditsRepo;
  readonly instanceId: string;

  private readonly accountById = new Map<string, AccountRecord>();
  /** The database version of each cached account (its credits are that row's plus `inflight`). */
  private readonly accountVersion = new Map<string, { version: number; credits: number }>();
  /** This instance's credit changes sent but not yet seen back, per account. */
  private readonly inflight = new Map<string, Map<number, number>>();
  private readonly keyByHash = new Map<string, ApiKeyRecord>();
  private readonly keyById = new Map<string, ApiKeyRecord>();
  private readonly keyVersion = new Map<string, number>();
  private readonly sessionByHash = new Map<string, SessionRecord>();
  private readonly sessionById = new Map<string, SessionRecord>();
  private readonly pending = new Set<Promise<unknown>>();
  /** Key uses not written yet (id → time): one statement for all of them every KEY_USES_BATCH_MS. */
  private usedKeys = new Map<string, number>();
  private usedBatch: { written: Promise<void>; sendNow: () => void } | undefined;
  /** Every batch of key uses fails while the database is away: logged once a minute, not every 200 ms. */
  private readonly keyUseFailures = new RepeatedFailure();
  /** One per cache reload under way: what changed in the cache since its snapshot began (see loadCache). */
  private readonly reloads = new Set<ChangedSince>();
  private listener: pg.Client | undefined;
  private closed = false;
  private writeSeq = 0;
  /** Whether PostgreSQL can be reached, for /health. */
  readonly database: DatabaseHealth;

  private constructor(
    readonly pool: pg.Pool,
    database: DatabaseHealth,
    private readonly url: string,
    private readonly warn: (message: string, fields?: Record<string, unknown>) => void,
    instanceId: string,
    readonly report: PostgresStoreReport,
    synchronousCommit = true,
  ) {
    this.instanceId = instanceId;
    // Every failed query and connection attempt of the pool reports to it (createPool's `failed`),
    // background work's too; and a pooled connection lost while idle (a restart, a cut) does here.
    this.database = database;
    pool.on('error', (error) => this.database.failed(error));
    this.media = new PostgresMediaRepo(pool);
    this.responses = new PostgresResponsesRepo(pool);
    this.conversations = new PostgresConversationsRepo(pool, instanceId);
    this.files = new PostgresFilesRepo(pool);
    this.uploads = new PostgresUploadsRepo(pool);
    this.batches = new PostgresBatchesRepo(pool);
    this.credits = new PostgresCreditsRepo(pool, instanceId, synchronousCommit);
    this.cache = {
      account: (id) => this.accountById.get(id),
      keyByHash: (hash) => this.keyByHash.get(hash),
      sessionByHash: (hash) => this.sessionByHash.get(hash),
    };

    this.accounts = {
      list: async () => (await pool.query<AccountRow>('select * from gw_accounts order by created_at, id')).rows.map((row) => this.applyAccountRow(row)),
      get: async (id) => {
        const { rows } = await pool.query<AccountRow>('select * from gw_accounts where id = $1', [id]);
        return rows[0] ? this.applyAccountRow(rows[0]) : undefined;
      },
      findByEmail: async (email) => {
        const { rows } = await pool.query<AccountRow>('select * from gw_accounts where lower(email) = lower($1) order by created_at, id limit 1', [email]);
        return rows[0] ? this.applyAccountRow(rows[0]) : undefined;
      },
      create: async (record) => {
        finiteCredits(record.credits, `account ${record.id}`);
        this.putAccount(record);
        let rows: AccountRow[];
        try {
          ({ rows } = await this.track(pool.query<AccountRow>(ACCOUNT_INSERT, accountParams(record))));
        } catch (error) {
          this.forgetAccount(record.id);
          // The unique index on lower(email) (migration 10): another instance created it first.
          if ((error as { code?: string; constraint?: string }).code === '23505' && (error as { constraint?: string }).constraint === 'gw_accounts_email_key') throw new EmailTakenError(record.email);
          throw error;
        }
        this.applyAccountRow(rows[0]);
        return this.accountById.get(record.id) ?? record;
      },
      update: async (id, patch) => {
        const { sql, values } = setClause(patch as Record<string, unknown>, ACCOUNT_COLUMNS as Record<string, string>);
        const text = sql ? `update gw_accounts set ${sql} where id = $1 returning *` : 'select * from gw_accounts where id = $1';
        const current = this.accountById.get(id);
        if (current) this.putAccount({ ...current, ...patch, id, credits: current.credits, billedSeq: current.billedSeq });
        const { rows } = await this.track(pool.query<AccountRow>(text, [id, ...values]));
        if (!rows[0]) {
          this.forgetAccount(id);
          return undefined;
        }
        return this.applyAccountRow(rows[0]);
      },
      adjustCredits: (id, delta, options = {}) => {
        try {
          finiteCredits(delta, `account ${id}`);
        } catch (error) {
          return Promise.reject(error);
        }
        const current = this.accountById.get(id);
        const seq = ++this.writeSeq;
        if (current) {
          const billedSeq = options.billedSeq !== undefined && options.billedSeq > (current.billedSeq ?? 0) ? options.billedSeq : current.billedSeq;
          const next: AccountRecord = { ...current, credits: addCredits(current.credits, delta) };
          if (billedSeq !== undefined) next.billedSeq = billedSeq;
          this.putAccount(next);
          let mine = this.inflight.get(id);
          if (!mine) this.inflight.set(id, (mine = new Map()));
          mine.set(seq, delta);
        }
        const written = pool
          .query<AccountRow>(
            `update gw_accounts set credits = round(credits + $2, 6), billed_seq = case when $3::bigint is not null and $3::bigint > coalesce(billed_seq, 0) then $3::bigint else billed_seq end
             where id = $1 returning *`,
            [id, delta, options.billedSeq ?? null],
          )
          .then(
            ({ rows }) => {
              this.inflight.get(id)?.delete(seq);
              const row = rows[0];
              if (!row) return undefined;
              // A withdrawal: this instance's slice of the account goes back too (its own announcement may come after this answer).
              if (delta < 0) this.credits.recalled(id);
              // Another instance's later change may have been announced before this answer came
              // back: that row already holds this change, so the view is it plus what is still on its way.
              const seen = this.accountVersion.get(id);
              const current = this.accountById.get(id);
              if (seen && current && seen.version >= Number(row.version ?? 0)) return this.withInflight(current, seen.credits);
              return this.applyAccountRow(row);
            },
            (error: unknown) => {
              // The change did not happen: the cache takes it back.
              this.inflight.get(id)?.delete(seq);
              const view = this.accountById.get(id);
              if (view) this.putAccount({ ...view, credits: addCredits(view.credits, -delta) });
              this.warn('store: a credit change could not be written to PostgreSQL', { account: id, error: String(error) });
              throw error;
            },
          );
        this.track(written).catch(() => undefined);
        return written;
      },
    };

    this.keys = {
      list: async (accountId) => {
        const { rows } = accountId
          ? await pool.query<KeyRow>('select * from gw_api_keys where account_id = $1 order by created_at, id', [accountId])
          : await pool.query<KeyRow>('select * from gw_api_keys order by created_at, id');
        return rows.map((row) => this.applyKeyRow(row));
      },
      get: async (id) => {
        const { rows } = await pool.query<KeyRow>('select * from gw_api_keys where id = $1', [id]);
        return rows[0] ? this.applyKeyRow(rows[0]) : undefined;
      },
      findByHash: async (hash) => {
        const { rows } = await pool.query<KeyRow>('select * from gw_api_keys where hash = $1', [hash]);
        return rows[0] ? this.applyKeyRow(rows[0]) : undefined;
      },
      create: async (record) => {
        this.putKey(record);
        const { rows } = await this.track(pool.query<KeyRow>(KEY_INSERT, keyParams(record)));
        return this.applyKeyRow(rows[0]);
      },
      update: async (id, patch) => {
        const current = this.keyById.get(id);
        if (current) this.putKey({ ...current, ...patch, id, hash: current.hash, accountId: current.accountId });
        const { sql, values } = setClause(patch as Record<string, unknown>, KEY_COLUMNS as Record<string, string>);
        const text = sql ? `update gw_api_keys set ${sql} where id = $1 returning *` : 'select * from gw_api_keys where id = $1';
        const { rows } = await this.track(pool.query<KeyRow>(text, [id, ...values]));
        return rows[0] ? this.applyKeyRow(rows[0]) : undefined;
      },
      markUsed: (id, at) => {
        const current = this.keyById.get(id);
        if (!current || (current.lastUsedAt != null && current.lastUsedAt >= at)) return Promise.resolve();
        // In place, as the file store does: a copy gave the key a new hidden class now and then (V8 deoptimised its readers).
        current.lastUsedAt = at;
        this.putKey(current);
        this.usedKeys.set(id, at);
        return this.writeUsedSoon();
      },
    };

    this.sessions = {
      findByHash: async (hash) => {
        const { rows } = await pool.query<SessionRow>('select * from gw_sessions where hash = $1', [hash]);
        return rows[0] ? this.putSession(sessionFromRow(rows[0])) : undefined;
      },
      create: async (record) => {
        this.putSession(record);
        await this.track(
          pool.query('insert into gw_sessions (id, account_id, hash, created_at, expires_at) values ($1, $2, $3, $4, $5)', [record.id, record.accountId, record.hash, record.createdAt, record.expiresAt]),
        );
        return record;
      },
      delete: async (id) => {
        this.dropSession(id);
        const { rowCount } = await this.track(pool.query('delete from gw_sessions where id = $1', [id]));
        return (rowCount ?? 0) > 0;
      },
      purgeExpired: async (now) => {
        for (const s of [...this.sessionById.values()]) if (s.expiresAt <= now) this.dropSession(s.id);
        const { rowCount } = await this.track(pool.query('delete from gw_sessions where expires_at <= $1', [now]));
        return rowCount ?? 0;
      },
      deleteForAccount: async (accountId) => {
        for (const s of [...this.sessionById.values()]) if (s.accountId === accountId) this.dropSession(s.id);
        const { rowCount } = await this.track(pool.query('delete from gw_sessions where account_id = $1', [accountId]));
        return rowCount ?? 0;
      },
    };
  }

  /**
   * Connects (one clear line when the database is unreachable), migrates under an advisory
   * lock (one line when its schema is newer than this code), loads the cached records and
   * starts listening for the other instances' changes.
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const warn = options.warn ?? (() => undefined);
    const instanceId = randomUUID();
    // The pool's failures reach /health whoever met them: a request, the heartbeat, the outbox, a
    // job's poll. Not while opening: a database away then stops the start with its one line.
    let opened = false;
    const pool = createPool(url, {
      max: options.poolSize,
      instanceId,
      queryTimeoutMs: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
      failed: (error) => {
        if (opened) health.failed(error);
      },
    });
    const health = new DatabaseHealth(pool, warn);
    try {
      await checkReachable(pool, url);
      const migrated = await migrate(url);
      const store = new PostgresStore(pool, health, url, warn, instanceId, { database: describePostgresUrl(url), migrated }, options.synchronousCommit);
      // Listen first, then load: a change made in between is applied twice, never missed.
      await store.listen();
      await store.loadCache();
      opened = true;
      return store;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    const done = () => this.pending.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /**
   * Brings the cache to a snapshot of every account, key and session (at start-up, and after the
   * notification connection dropped). What the cache took while the snapshot was read (announced,
   * or this instance's own writes) may be newer: an account's or a key's version decides, one
   * deleted meanwhile stays deleted, a session changed meanwhile stays as it is. Whatever the
   * snapshot lacks and nothing put back meanwhile was deleted: it is dropped.
   */
  private async loadCache(): Promise<void> {
    const since: ChangedSince = { accounts: new Set(), keys: new Set(), sessions: new Set() };
    this.reloads.add(since);
    let snapshot;
    try {
      snapshot = await Promise.all([
        this.pool.query<AccountRow>('select * from gw_accounts'),
        this.pool.query<KeyRow>('select * from gw_api_keys'),
        this.pool.query<SessionRow>('select * from gw_sessions'),
      ]);
    } finally {
      this.reloads.delete(since);
    }
    const [accounts, keys, sessions] = snapshot;
    // An account or a key changed meanwhile and no longer cached was deleted after the snapshot: it stays so.
    for (const row of accounts.rows) if (this.accountById.has(row.id) || !since.accounts.has(row.id)) this.applyAccountRow(row);
    for (const row of keys.rows) if (this.keyById.has(row.id) || !since.keys.has(row.id)) this.applyKeyRow(row);
    for (const row of sessions.rows) if (!since.sessions.has(row.id)) this.putSession(sessionFromRow(row));
    // Cached, not in the snapshot and not changed meanwhile: deleted while nobody listened.
    const stale = (cached: Iterable<string>, rows: Array<{ id: string }>, changed: Set<string>) => {
      const present = new Set(rows.map((row) => row.id));
      return [...cached].filter((id) => !present.has(id) && !changed.has(id));
    };
    for (const id of stale(this.accountById.keys(), accounts.rows, since.accounts)) this.forgetAccount(id);
    for (const id of stale(this.keyById.keys(), keys.rows, since.keys)) this.forgetKey(id);
    for (const id of stale(this.sessionById.keys(), sessions.rows, since.sessions)) this.dropSession(id);
  }

  /** One connection held for LISTEN; when it drops, another is opened and the cache reloaded (changes may have been missed). */
  private async listen(): Promise<void> {
    const driver = pgDriver();
    // Bounded as the pool's connection attempts are: a reconnection to a server that answers nothing fails and is tried again.
    const client = new driver.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, types: { getTypeParser: driver.types.getTypeParser } as pg.CustomTypesConfig });
    client.on('notification', (message) => {
      if (message.channel === LEASE_CHANNEL) {
        if (message.payload) this.credits.recalled(message.payload);
        return;
      }
      if (message.channel !== CHANNEL || !message.payload) return;
      try {
        this.applyAnnouncement(JSON.parse(message.payload) as Announcement);
      } catch (error) {
        this.warn('store: an announcement from PostgreSQL could not be applied', { error: String(error) });
      }
    });
    // Lost: 'end' follows and listens again. The loss alone is no outage (a backend ended from the server,
    // a pooler recycling it); a connection that cannot be opened again is (relisten), and /health says so.
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      this.warn('store: lost the PostgreSQL notification connection; reconnecting');
      void this.relisten(1);
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}; listen ${LEASE_CHANNEL}`);
    this.listener = client;
  }

  private async relisten(attempt: number): Promise<void> {
    if (this.closed) return;
    try {
      // A listener from an attempt whose reload failed is still listening: not a second one.
      if (!this.listener) await this.listen();
      await this.loadCache();
      this.warn('store: PostgreSQL notifications back; cache reloaded');
    } catch (error) {
      this.database.failed(error);
      setTimeout(() => void this.relisten(attempt + 1), Math.min(5_000, 100 * 2 ** attempt)).unref();
    }
  }

  /** A session announced without its row (too large for a notification): read by id. */
  private async reloadSession(id: string): Promise<void> {
    const { rows } = await this.pool.query<SessionRow>('select * from gw_sessions where id = $1', [id]);
    if (rows[0]) this.putSession(sessionFromRow(rows[0]));
  }

  private applyAnnouncement(note: Announcement): void {
    if (note.origin === this.instanceId && note.table !== 'gw_accounts') return;
    if (note.table === 'gw_sessions') {
      if (note.op === 'delete') this.dropSession(note.id);
      else if (note.row) this.putSession(sessionFromRow(note.row as unknown as SessionRow));
      else void this.reloadSession(note.id).catch(() => undefined);
      return;
    }
    if (note.op === 'delete') {
      if (note.table === 'gw_accounts') this.forgetAccount(note.id);
      else this.forgetKey(note.id);
      return;
    }
    if (!note.row) {
      // Too large for a notification: read it.
      void (note.table === 'gw_accounts' ? this.accounts.get(note.id) : this.keys.get(note.id)).catch(() => undefined);
      return;
    }
    if (note.table === 'gw_accounts') {
      const row = note.row as unknown as AccountRow;
      const before = this.accountVersion.get(row.id);
      this.applyAccountRow(row);
      // Settlements are not announced: a balance announced lower is an operator's withdrawal. Slices
      // of the account (on every instance, this one too) go back, so admission sees the new balance.
      const after = this.accountVersion.get(row.id);
      if (before && after && after.version > before.version && after.credits < before.credits) this.credits.recalled(row.id);
    } else this.applyKeyRow(note.row as unknown as KeyRow);
  }

  /** Applies a row read from the database when it is newer than the cached one; returns the cached view. */
  private applyAccountRow(row: AccountRow): AccountRecord {
    const version = Number(row.version ?? 0);
    const seen = this.accountVersion.get(row.id);
    if (seen && seen.version > version) return this.accountById.get(row.id) ?? accountFromRow(row);
    const record = accountFromRow(row);
    this.accountVersion.set(row.id, { version, credits: record.credits });
    return this.withInflight(record, record.credits);
  }

  /** Caches `record` with the credits of its latest database row plus this instance's changes still on their way. */
  private withInflight(record: AccountRecord, rowCredits: number): AccountRecord {
    let credits = rowCredits;
    for (const delta of this.inflight.get(record.id)?.values() ?? []) credits = addCredits(credits, delta);
    return this.putAccount(credits === record.credits ? record : { ...record, credits });
  }

  private applyKeyRow(row: KeyRow): ApiKeyRecord {
    const version = Number(row.version ?? 0);
    const seen = this.keyVersion.get(row.id);
    if (seen !== undefined && seen > version) return this.keyById.get(row.id) ?? keyFromRow(row);
    this.keyVersion.set(row.id, version);
    return this.putKey(keyFromRow(row));
  }

  /** Every change to the cached accounts, keys and sessions goes through these (so a reload under way sees it). */
  private changed(kind: keyof ChangedSince, id: string): void {
    for (const since of this.reloads) since[kind].add(id);
  }

  private putAccount(record: AccountRecord): AccountRecord {
    this.changed('accounts', record.id);
    this.accountById.set(record.id, record);
    return record;
  }

  private forgetAccount(id: string): void {
    this.changed('accounts', id);
    this.accountById.delete(id);
    this.accountVersion.delete(id);
  }

  private putKey(record: ApiKeyRecord): ApiKeyRecord {
    this.changed('keys', record.id);
    const old = this.keyById.get(record.id);
    if (old && old.hash !== record.hash) this.keyByHash.delete(old.hash);
    this.keyById.set(record.id, record);
    this.keyByHash.set(record.hash, record);
    return record;
  }

  private forgetKey(id: string): void {
    this.changed('keys', id);
    const key = this.keyById.get(id);
    if (key) this.keyByHash.delete(key.hash);
    this.keyById.delete(id);
    this.keyVersion.delete(id);
  }

  private putSession(record: SessionRecord): SessionRecord {
    this.changed('sessions', record.id);
    this.sessionById.set(record.id, record);
    this.sessionByHash.set(record.hash, record);
    return record;
  }

  private dropSession(id: string): void {
    this.changed('sessions', id);
    const s = this.sessionById.get(id);
    if (!s) return;
    this.sessionById.delete(id);
    this.sessionByHash.delete(s.hash);
  }

  async claimJob(name: string, everyMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `insert into gw_jobs (name, ran_at) values ($1, (extract(epoch from clock_timestamp()) * 1000)::bigint)
       on conflict (name) do update set ran_at = excluded.ran_at where gw_jobs.ran_at <= excluded.ran_at - $2`,
      [name, Math.max(0, Math.floor(everyMs))],
    );
    return (rowCount ?? 0) > 0;
  }

  async flush(): Promise<void> {
    this.usedBatch?.sendNow();
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** The key uses noted in the next KEY_USES_BATCH_MS go out together; resolves once they are written. */
  private writeUsedSoon(): Promise<void> {
    if (this.usedBatch) return this.usedBatch.written;
    let sendNow!: () => void;
    const due = new Promise<void>((resolve) => (sendNow = resolve));
    const timer = setTimeout(sendNow, KEY_USES_BATCH_MS);
    timer.unref();
    const written = due.then(async () => {
      clearTimeout(timer);
      this.usedBatch = undefined;
      const uses = this.usedKeys;
      this.usedKeys = new Map();
      const { rows } = await this.pool.query<KeyRow>(
        `update gw_api_keys k set last_used_at = u.at from unnest($1::text[], $2::bigint[]) as u(id, at)
         where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.at) returning k.*`,
        [[...uses.keys()], [...uses.values()]],
      );
      for (const row of rows) this.applyKeyRow(row);
    });
    this.usedBatch = { written, sendNow };
    this.track(written).then(
      () => {
        const failures = this.keyUseFailures.succeeded();
        if (failures > 0) this.warn('store: key uses written to PostgreSQL again', { failures });
      },
      (error: unknown) => {
        if (this.keyUseFailures.failed()) this.warn('store: key uses could not be written to PostgreSQL (logged once a minute while it fails)', { error: String(error), failures: this.keyUseFailures.count });
      },
    );
    return written;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.database.stop();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}

/**
 * Applies the migrations on a connection of their own, without the serving pool's query
 * timeout: waiting for another instance's migration (the advisory lock) or building an index on
 * a large table may take longer than any one request should.
 */
async function migrate(url: string): Promise<number[]> {
  const pool = createPool(url, { max: 1 });
  try {
    return await applyMigrations(pool, url);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
