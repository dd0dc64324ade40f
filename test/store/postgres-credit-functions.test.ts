import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { CREDIT_FUNCTIONS } from '../../src/store/postgres/credit-functions.ts';
import { PostgresStore } from '../../src/store/postgres/index.ts';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { anAccount } from './store.case.ts';

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
const databases: TestDatabase[] = [];
const clients: pg.Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.end();
  for (const db of databases.splice(0)) await db.drop();
});

async function database(): Promise<{ url: string; sql: pg.Client }> {
  const db = await createTestDatabase();
  databases.push(db);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  clients.push(sql);
  return { url: db.url, sql };
}

/** Every gw_ function's definition as PostgreSQL prints it back (`pg_get_functiondef`), by name and arguments. */
async function functionDefs(sql: pg.Client): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ id: string; def: string }>(
    `select p.oid::regprocedure::text as id, pg_get_functiondef(p.oid) as def from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = current_schema() and p.proname like 'gw\\_%' order by 1`,
  );
  return new Map(rows.map((r) => [r.id, r.def]));
}

/** The bodies PostgreSQL keeps for the functions of one name (`prosrc`). */
async function storedBodies(sql: pg.Client, name: string): Promise<string[]> {
  return (await sql.query<{ src: string }>('select prosrc as src from pg_proc where proname = $1', [name])).rows.map((r) => r.src);
}

/** The body between the $$ quotes of a definition in credit-functions.ts. */
function bodyOf(sql: string): string {
  const start = sql.indexOf('$$');
  return sql.slice(start + 2, sql.indexOf('$$', start + 2));
}

/** The schema as the versioned migrations 1–12 leave it, without the repeatable one (a database a gateway before it made). */
async function upToVersion12(sql: pg.Client): Promise<void> {
  await sql.query('create table gw_schema (version integer primary key, name text not null, applied_at timestamptz not null default now())');
  for (const m of MIGRATIONS.filter((m) => m.version <= 12)) {
    await sql.query(m.sql);
    await sql.query('insert into gw_schema (version, name) values ($1, $2)', [m.version, m.name]);
  }
}

describe('credit functions: one definition each (credit-functions.ts), applied as a repeatable migration', () => {
  it('a fresh database and one upgraded from version 12 end with the same function bodies, those of credit-functions.ts', async () => {
    const fresh = await database();
    await (await PostgresStore.open(fresh.url)).close();
    const upgraded = await database();
    await upToVersion12(upgraded.sql);
    await (await PostgresStore.open(upgraded.url)).close();
    const [freshDefs, upgradedDefs] = await Promise.all([functionDefs(fresh.sql), functionDefs(upgraded.sql)]);
    expect([...upgradedDefs.keys()]).toEqual([...freshDefs.keys()]);
    for (const [id, def] of freshDefs) expect(upgradedDefs.get(id), id).toBe(def);
    // Each function of credit-functions.ts is in the database with its body from there.
    for (const f of CREDIT_FUNCTIONS) expect(await storedBodies(fresh.sql, f.name), f.name).toEqual([bodyOf(f.sql)]);
  });

  it('a version-12 database with ledger rows upgrades (migration 13): old rows have no web_search_requests, a settlement writes it', async () => {
    const { url, sql } = await database();
    await upToVersion12(sql);
    await sql.query(
      "insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, cost_credits, charged_credits) values ('req_old', 1, 'acc_1', 'key_1', 'm', 'p', '/v1/messages', 3, 2, 1, 1)",
    );
    const store = await PostgresStore.open(url);
    try {
      expect(store.report.migrated).toEqual(MIGRATIONS.filter((m) => m.version >= 13).map((m) => m.version));
      const account = await store.accounts.create(anAccount({ credits: 100 }));
      const periods = { day: '2026-11-28', week: '2026-11-23', month: '2026-11' };
      const entry = { ts: 2, request_id: 'req_new', account_id: account.id, key_id: 'key_1', model: 'm', provider: 'p', endpoint: '/v1/messages', input_tokens: 3, output_tokens: 2, reasoning_tokens: 0, cached_tokens: 0, web_search_requests: 2, cost_credits: 1, charged_credits: 1, estimated: false, aborted: false };
      expect(await store.credits.settle({ entry, enforce: false, periods })).toMatchObject({ inserted: true });
      const ledger = await store.credits.ledger({ limit: 10 });
      expect(ledger.map((r) => [r.request_id, r.web_search_requests])).toEqual([['req_old', undefined], ['req_new', 2]]);
      expect(ledger[0]).not.toHaveProperty('web_search_requests');
    } finally {
      await store.close();
    }
  });

  it('is applied again when its text differs from the one recorded, and left alone when it does not', async () => {
    const { url, sql } = await database();
    await (await PostgresStore.open(url)).close();
    const applied = async () => (await sql.query<{ checksum: string; at: Date }>("select checksum, applied_at as at from gw_schema_repeatable where name = 'credit functions'")).rows[0];
    const first = await applied();
    expect(first.checksum).toMatch(/^[0-9a-f]{64}$/);
    // A start with the same text: nothing re-applied.
    await (await PostgresStore.open(url)).close();
    expect(await applied()).toEqual(first);
    // A function changed by hand (or by an older gateway) and a recorded checksum that is not this code's: the next start puts the definition back.
    const release = CREDIT_FUNCTIONS.find((f) => f.name === 'gw_release')!;
    await sql.query("create or replace function gw_release(p_request text) returns boolean language plpgsql as $$ begin return false; end $$");
    await sql.query("update gw_schema_repeatable set checksum = 'older' where name = 'credit functions'");
    await (await PostgresStore.open(url)).close();
    expect(await storedBodies(sql, 'gw_release')).toEqual([bodyOf(release.sql)]);
    expect((await applied()).checksum).toBe(first.checksum);
  });
});
