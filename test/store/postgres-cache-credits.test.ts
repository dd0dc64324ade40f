import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/index.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { anAccount } from './store.case.ts';

/**
 * Each instance's cached balance is the database row's credits plus its own changes not yet
 * answered. Its own change can come back by notification (inside a newer row, with another
 * instance's change) before its answer: the cache must not count it twice, then or after.
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

describe('postgres store: cached balances across instances', () => {
  it('concurrent credit changes on two instances: both caches settle on the database balance, every time', async () => {
    const a = await PostgresStore.open(db.url);
    const b = await PostgresStore.open(db.url);
    try {
      const account = await a.accounts.create(anAccount({ credits: 1_000 }));
      await expect.poll(() => b.cache.account(account.id)?.credits, { timeout: 1_000, interval: 10 }).toBe(1_000);
      for (let round = 0; round < 25; round++) {
        await Promise.all([a.accounts.adjustCredits(account.id, -1), b.accounts.adjustCredits(account.id, -2), a.accounts.adjustCredits(account.id, -3)]);
        const { rows } = await sql.query<{ credits: string }>('select credits from gw_accounts where id = $1', [account.id]);
        const truth = Number(rows[0].credits);
        expect(truth).toBe(1_000 - 6 * (round + 1));
        await expect.poll(() => [a.cache.account(account.id)?.credits, b.cache.account(account.id)?.credits], { timeout: 1_000, interval: 10 }).toEqual([truth, truth]);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});
