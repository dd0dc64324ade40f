import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { bootstrapDataDir } from '../../src/app/bootstrap.ts';
import { PostgresStore } from '../../src/store/postgres/index.ts';
import { systemClock } from '../../src/util/clock.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';

/**
 * Instances started together on an empty database each find no account and would create the
 * local default account and its first key: exactly one of them must, and none may fail.
 */
const databases: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});

describe('postgres store: first start of several instances at once', () => {
  it('exactly one instance creates the default account and its first key; the others start without', async () => {
    for (let round = 0; round < 3; round++) {
      const db = await createTestDatabase();
      databases.push(db);
      const stores = await Promise.all([PostgresStore.open(db.url), PostgresStore.open(db.url), PostgresStore.open(db.url)]);
      try {
        const made = await Promise.all(stores.map((s) => bootstrapDataDir(s, systemClock)));
        expect(made.filter(Boolean), `round ${round}`).toHaveLength(1);
        const sql = new pg.Client({ connectionString: db.url });
        await sql.connect();
        try {
          const { rows } = await sql.query<{ n: string }>('select count(*) as n from gw_accounts');
          expect(Number(rows[0].n), `round ${round}`).toBe(1);
        } finally {
          await sql.end();
        }
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    }
  }, 60_000);
});
