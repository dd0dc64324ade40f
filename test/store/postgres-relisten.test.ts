import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/index.ts';
import { ACCOUNT_INSERT, KEY_INSERT, accountParams, keyParams } from '../../src/store/postgres/rows.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { until } from '../helpers/until.ts';
import { aKey, aSession, anAccount } from './store.case.ts';
import { startFreezableProxy } from '../limits/freezable-proxy.ts';

/**
 * When its notification connection drops, an instance listens again and reloads its cache from a
 * snapshot. A change announced while that snapshot was read is newer than the snapshot, and what
 * the snapshot lacks is gone: the reload must not bring back a revoked key, a suspended account's
 * old state or a deleted session, nor keep what was deleted while the instance heard nothing.
 *
 * The race is held open on purpose: one table is locked from another connection, so the reload's
 * query of it waits while its other two queries answer; the test commits its changes (announced
 * and applied to the cache), then releases the lock and the reload applies its snapshot.
 */

let db: TestDatabaseWithClient;
let sql: pg.Client;
beforeAll(async () => {
  db = await connectTestDatabase();
  sql = db.sql;
}, 60_000);
afterAll(async () => {
  await db?.drop();
});

type Table = 'gw_accounts' | 'gw_api_keys' | 'gw_sessions';
const SNAPSHOT: Table[] = ['gw_accounts', 'gw_api_keys', 'gw_sessions'];

/** A store on the test database (or `url`), how many times it has reloaded its cache after losing its notifications, and what it warned. */
async function openStore(url = db.url): Promise<{ store: PostgresStore; reloads: () => number; warned: string[] }> {
  let reloads = 0;
  const warned: string[] = [];
  const store = await PostgresStore.open(url, {
    warn: (message) => {
      warned.push(message);
      if (message.includes('cache reloaded')) reloads++;
    },
  });
  return { store, reloads: () => reloads, warned };
}

/** Ends the notification connection (the only LISTENing backend on this database) and waits until its backend is gone. */
async function dropListener(): Promise<void> {
  const { rows } = await sql.query("select pg_terminate_backend(pid, 5000) as ended from pg_stat_activity where datname = current_database() and query like 'listen %'");
  expect(rows.map((r) => r.ended)).toContain(true);
}

/**
 * Drops the listener while `held` is locked: once the reload listens again and its snapshot's
 * other queries have answered (the one of `held` waiting for the lock), runs `during`, then
 * releases the lock and waits for the reload to finish.
 */
async function reloadHolding(held: Table, reloads: () => number, during: () => Promise<void>): Promise<void> {
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  try {
    const before = reloads();
    await locker.query('begin');
    await locker.query(`lock table ${held} in access exclusive mode`);
    const since = (await sql.query<{ at: string }>('select clock_timestamp()::text as at')).rows[0].at;
    await dropListener();
    await until(`the reload's snapshot queries (${held} waiting for its lock)`, async () => {
      const { rows } = await sql.query<{ query: string; state: string; wait_event_type: string | null }>(
        'select query, state, wait_event_type from pg_stat_activity where datname = current_database() and query_start > $1::timestamptz and query = any($2)',
        [since, SNAPSHOT.map((t) => `select * from ${t}`)],
      );
      const ready = rows.length === 3 && rows.every((r) => (r.query === `select * from ${held}` ? r.wait_event_type === 'Lock' : r.state === 'idle'));
      return ready || undefined;
    });
    await during();
    expect(reloads()).toBe(before);
    await locker.query('commit');
    await expect.poll(reloads, { timeout: 5_000, interval: 10 }).toBe(before + 1);
  } finally {
    await locker.end();
  }
}

const insertSession = (s: ReturnType<typeof aSession>) =>
  sql.query('insert into gw_sessions (id, account_id, hash, created_at, expires_at) values ($1, $2, $3, $4, $5)', [s.id, s.accountId, s.hash, s.createdAt, s.expiresAt]);

describe('postgres store: the cache reload after the notification connection drops', () => {
  it('a key revoked and a session deleted while the snapshot is read stay so; a key and a session created meanwhile stay', async () => {
    const { store, reloads } = await openStore();
    try {
      const account = await store.accounts.create(anAccount());
      const revoked = await store.keys.create(aKey(account.id));
      const loggedOut = await store.sessions.create(aSession(account.id, Date.now() + 3_600_000));
      const newKey = aKey(account.id);
      const newSession = aSession(account.id, Date.now() + 3_600_000);

      await reloadHolding('gw_accounts', reloads, async () => {
        // Another instance revokes a key, ends a session, creates a key and a session: announced, applied.
        await sql.query('update gw_api_keys set revoked_at = 42 where id = $1', [revoked.id]);
        await sql.query('delete from gw_sessions where id = $1', [loggedOut.id]);
        await sql.query(KEY_INSERT, keyParams(newKey));
        await insertSession(newSession);
        await expect
          .poll(() => [store.cache.keyByHash(revoked.hash)?.revokedAt, store.cache.sessionByHash(loggedOut.hash)?.id, store.cache.keyByHash(newKey.hash)?.id, store.cache.sessionByHash(newSession.hash)?.id], {
            timeout: 1_000,
            interval: 10,
          })
          .toEqual([42, undefined, newKey.id, newSession.id]);
      });

      expect([store.cache.keyByHash(revoked.hash)?.revokedAt, store.cache.sessionByHash(loggedOut.hash)?.id, store.cache.keyByHash(newKey.hash)?.id, store.cache.sessionByHash(newSession.hash)?.id]).toEqual([
        42,
        undefined,
        newKey.id,
        newSession.id,
      ]);
    } finally {
      await store.close();
    }
  }, 30_000);

  it('an account suspended while the snapshot is read stays suspended', async () => {
    const { store, reloads } = await openStore();
    try {
      const account = await store.accounts.create(anAccount());
      await reloadHolding('gw_sessions', reloads, async () => {
        await sql.query('update gw_accounts set suspended = true where id = $1', [account.id]);
        await expect.poll(() => store.cache.account(account.id)?.suspended, { timeout: 1_000, interval: 10 }).toBe(true);
      });
      expect(store.cache.account(account.id)?.suspended).toBe(true);
    } finally {
      await store.close();
    }
  }, 30_000);

  it('a key, a session and an account deleted unheard (as while the connection was down) are gone after the reload', async () => {
    const { store, reloads } = await openStore();
    try {
      const account = await store.accounts.create(anAccount());
      const kept = await store.keys.create(aKey(account.id));
      const gone = await store.keys.create(aKey(account.id));
      const session = await store.sessions.create(aSession(account.id, Date.now() + 3_600_000));
      const goneAccount = anAccount();
      await sql.query(ACCOUNT_INSERT, accountParams(goneAccount));
      await expect.poll(() => store.cache.account(goneAccount.id)?.id, { timeout: 1_000, interval: 10 }).toBe(goneAccount.id);

      // Triggers off (replica role): no announcement, as for a change made while nobody listened.
      await sql.query('begin');
      await sql.query('set local session_replication_role = replica');
      await sql.query('delete from gw_api_keys where id = $1', [gone.id]);
      await sql.query('delete from gw_sessions where id = $1', [session.id]);
      await sql.query('delete from gw_accounts where id = $1', [goneAccount.id]);
      await sql.query('commit');
      expect(store.cache.keyByHash(gone.hash)?.id).toBe(gone.id);

      await dropListener();
      await expect.poll(reloads, { timeout: 5_000, interval: 10 }).toBe(1);
      expect([store.cache.keyByHash(gone.hash)?.id, store.cache.sessionByHash(session.hash)?.id, store.cache.account(goneAccount.id)?.id]).toEqual([undefined, undefined, undefined]);
      expect([store.cache.keyByHash(kept.hash)?.id, store.cache.account(account.id)?.id]).toEqual([kept.id, account.id]);
    } finally {
      await store.close();
    }
  }, 30_000);

  // An operator reads /health's 503 as an outage (a load balancer takes the instance out): a notification
  // connection ended from the server (pg_terminate_backend, a pooler recycling it) and listening again at once
  // is none. Before, the ended connection's error marked the database unreachable until the next probe, ~1 s later.
  it('a notification connection ended and opened again at once leaves the database reachable', async () => {
    const { store, reloads, warned } = await openStore();
    try {
      await dropListener();
      await expect.poll(reloads, { timeout: 5_000, interval: 10 }).toBe(1);
      expect(store.database.state()).toEqual({ store: 'postgres', reachable: true });
      expect(warned.filter((line) => line.includes('cannot be reached'))).toEqual([]);
    } finally {
      await store.close();
    }
  }, 30_000);

  it('a notification connection that cannot be opened again marks the database unreachable until it answers', async () => {
    const proxy = await startFreezableProxy(Number(new URL(db.url).port || 5432), new URL(db.url).hostname);
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    const { store, reloads } = await openStore(viaProxy.toString());
    try {
      // Nothing else of this store queries meanwhile: only the listener finds the database away.
      proxy.cut();
      await expect.poll(() => store.database.state().reachable, { timeout: 5_000, interval: 10 }).toBe(false);
      proxy.restore();
      await expect.poll(reloads, { timeout: 10_000, interval: 20 }).toBe(1);
      await expect.poll(() => store.database.state().reachable, { timeout: 5_000, interval: 20 }).toBe(true);
    } finally {
      await store.close();
      await proxy.close();
    }
  }, 30_000);

  it('a reload that fails is tried again on the same notification connection, not on a second one', async () => {
    const { store, reloads } = await openStore();
    const listeners = async () => (await sql.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and query like 'listen %'")).rows[0].n as number;
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      expect(await listeners()).toBe(1);
      await locker.query('begin');
      await locker.query('lock table gw_sessions in access exclusive mode');
      const since = (await sql.query<{ at: string }>('select clock_timestamp()::text as at')).rows[0].at;
      await dropListener();
      // The reload's snapshot waits for the lock: end that query's backend, so the reload fails after listening again.
      const waiting = await until('the reload waiting for gw_sessions', async () => {
        const { rows } = await sql.query<{ pid: number }>(
          "select pid from pg_stat_activity where datname = current_database() and query_start > $1::timestamptz and query = 'select * from gw_sessions' and wait_event_type = 'Lock'",
          [since],
        );
        return rows[0]?.pid;
      });
      await sql.query('select pg_terminate_backend($1, 5000)', [waiting]);
      await locker.query('commit');
      await expect.poll(reloads, { timeout: 10_000, interval: 20 }).toBe(1);
      expect(await listeners()).toBe(1);
    } finally {
      await locker.end();
      await store.close();
    }
  }, 30_000);
});
