import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/index.ts';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { EXPIRED_FILES_SQL } from '../../src/store/postgres/postgres-files-repo.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { aFile, aKey, anAccount, describeStore } from './store.case.ts';
import { createAccount } from '../../src/admin/accounts.ts';
import { systemClock } from '../../src/util/clock.ts';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

// Each store starts on a fresh database (the contract's "fresh, empty data"); all are dropped after the run.
const databases: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
const urls = new WeakMap<object, string>();
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});
describeStore('postgres', {
  sharedCredits: true,
  async open() {
    const fresh = await createTestDatabase();
    databases.push(fresh);
    const store = await PostgresStore.open(fresh.url);
    urls.set(store, fresh.url);
    return store;
  },
  async reopen(store) {
    const url = urls.get(store)!;
    await store.close();
    const next = await PostgresStore.open(url);
    urls.set(next, url);
    return next;
  },
  async second(store) {
    const url = urls.get(store)!;
    const next = await PostgresStore.open(url);
    urls.set(next, url);
    return next;
  },
});

describe('postgres store: start-up and instances', () => {
  it("a whole read of an upload whose chunks went (a delete between the record's read and the chunks') fails, never answers a shorter file", async () => {
    const fresh = await createTestDatabase();
    const store = await PostgresStore.open(fresh.url);
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stage-'));
    try {
      const big = Buffer.alloc(2_500_000 + 7, 'ab\n');
      const staged = path.join(dir, 'upload.part');
      fs.writeFileSync(staged, big);
      const record = await store.files.createFromFile(aFile('acct-1', { bytes: big.length }), staged);
      expect((await store.files.content('acct-1', record.id))!.equals(big)).toBe(true);
      // What a delete committed between content()'s two queries leaves to the second: the record read, no chunks.
      await client.query('delete from gw_file_chunks where file_id = $1', [record.id]);
      await expect(store.files.content('acct-1', record.id)).rejects.toThrow(/deleted while its contents were read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await client.end();
      await store.close();
      await fresh.drop();
    }
  });

  it('instances starting together migrate once, under the advisory lock', async () => {
    const fresh = await createTestDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open(fresh.url)));
      expect(stores.flatMap((s) => s.report.migrated)).toEqual(MIGRATIONS.map((m) => m.version));
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await fresh.drop();
    }
  });

  it("the files sweep's query is answered from the expiry index, not by parsing every file's record", async () => {
    const fresh = await createTestDatabase();
    const store = await PostgresStore.open(fresh.url);
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    try {
      // 50,000 files, one in 50 expiring (Gemini uploads): the planner prefers another plan unless the query is the index's.
      await client.query(
        `insert into gw_files (id, account_id, purpose, created_at, record, content)
         select 'f' || g, 'a', 'user_data', g, case when g % 50 = 0 then '{"expires_at":' || (1000 + g) || '}' else '{"expires_at":null}' end, null
         from generate_series(1, 50000) g`,
      );
      await client.query('analyze gw_files');
      const sql = EXPIRED_FILES_SQL.replace('$1', '1000').replace('$2', '100');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${sql}`);
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('gw_files_expiry');
    } finally {
      await client.end();
      await store.close();
      await fresh.drop();
    }
  });

  it('an unreachable database stops with one line naming it, without its password', async () => {
    const warned: string[] = [];
    await expect(PostgresStore.open('postgres://gw:s3cret-pass@127.0.0.1:1/nowhere', { warn: (line) => warned.push(line) })).rejects.toThrow(
      /^store: PostgreSQL at postgres:\/\/gw@127\.0\.0\.1:1\/nowhere is unreachable \(ECONNREFUSED\); check store\.postgres/,
    );
    // Only that line: the health report ('cannot be reached; /health says …') is for a store that opened.
    expect(warned).toEqual([]);
    await PostgresStore.open('postgres://gw:s3cret-pass@127.0.0.1:1/nowhere').catch((error: Error) => expect(error.message).not.toContain('s3cret'));
  });

  it('a schema newer than the code stops with one line', async () => {
    const fresh = await createTestDatabase();
    try {
      const store = await PostgresStore.open(fresh.url);
      await store.close();
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      await c.query("insert into gw_schema (version, name) values (999, 'from the future')");
      await c.end();
      await expect(PostgresStore.open(fresh.url)).rejects.toThrow(/schema .* is version 999, newer than this gateway's \d+; upgrade the gateway/);
    } finally {
      await fresh.drop();
    }
  });

  it('two instances creating one email at once (any case) end with one account; the other gets the sequential 409', async () => {
    const a = await PostgresStore.open(db.url);
    const b = await PostgresStore.open(db.url);
    try {
      for (let round = 0; round < 5; round++) {
        const email = `both-${round}@example.test`;
        const raced = await Promise.allSettled([createAccount(a, systemClock, { email }), createAccount(b, systemClock, { email: email.toUpperCase() })]);
        expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = raced.find((r) => r.status === 'rejected')!.reason as { code: string; message: string };
        expect(lost).toMatchObject({ code: 'conflict', message: expect.stringMatching(new RegExp(`^An account with email ${email.replace('.', '\\.')} already exists\\.$`, 'i')) });
        const { rows } = await a.pool.query('select id from gw_accounts where lower(email) = $1', [email]);
        expect(rows).toHaveLength(1);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('accounts already sharing an email stop the unique-email migration (10) with one line naming them', async () => {
    const fresh = await createTestDatabase();
    const c = new pg.Client({ connectionString: fresh.url });
    await c.connect();
    try {
      // The schema as migrations 1-9 left it, with two accounts of one email (made by two instances before 10).
      await c.query('create table gw_schema (version integer primary key, name text not null, applied_at timestamptz not null default now())');
      for (const m of MIGRATIONS.filter((m) => m.version < 10)) {
        await c.query(m.sql);
        await c.query('insert into gw_schema (version, name) values ($1, $2)', [m.version, m.name]);
      }
      const insert = 'insert into gw_accounts (id, email, tier, credits, created_at) values ($1, $2, $3, $4, $5)';
      await c.query(insert, ['acct_one', 'Dup@Example.test', 'free', 0, 1]);
      await c.query(insert, ['acct_two', 'dup@example.test', 'free', 0, 2]);
      await c.query(insert, ['acct_solo', 'solo@example.test', 'free', 0, 3]);
      const error = await PostgresStore.open(fresh.url).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(
        'store: PostgreSQL migration 10 (account emails unique) failed: accounts share an email (ignoring case): dup@example.test (acct_one <Dup@Example.test>, acct_two <dup@example.test>); ' +
          "give all but one of each another email (update gw_accounts set email = '…' where id = '…'), then start again",
      );
      // Nothing half-applied: still version 9, and the fix lets the next start through.
      expect((await c.query('select max(version)::int as v from gw_schema')).rows[0].v).toBe(9);
      await c.query("update gw_accounts set email = 'dup2@example.test' where id = 'acct_two'");
      const store = await PostgresStore.open(fresh.url);
      expect(store.report.migrated).toEqual(MIGRATIONS.filter((m) => m.version >= 10).map((m) => m.version));
      await store.close();
    } finally {
      await c.end();
      await fresh.drop();
    }
  });

  it("another instance's key creation, revocation and balance change reach the cache through notifications", async () => {
    const a = await PostgresStore.open(db.url);
    const b = await PostgresStore.open(db.url);
    try {
      const account = await a.accounts.create(anAccount({ credits: 10 }));
      const key = await a.keys.create(aKey(account.id));
      await expect.poll(() => b.cache.keyByHash(key.hash)?.id, { timeout: 1_000, interval: 10 }).toBe(key.id);
      await b.keys.update(key.id, { revokedAt: 42 });
      await expect.poll(() => a.cache.keyByHash(key.hash)?.revokedAt, { timeout: 1_000, interval: 10 }).toBe(42);
      await Promise.all([a.accounts.adjustCredits(account.id, -1), b.accounts.adjustCredits(account.id, -2)]);
      await expect.poll(() => [a.cache.account(account.id)?.credits, b.cache.account(account.id)?.credits], { timeout: 1_000, interval: 10 }).toEqual([7, 7]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("an instance's own credit change answered after another instance's later change was announced counts once", async () => {
    // The announcement of B's later change (whose row already includes A's change) can reach A
    // before the answer to A's own update: A's view must end at that row, not that row minus A's
    // change again (it stayed one change low: the flaky [6, 7] of the test above).
    const a = await PostgresStore.open(db.url);
    try {
      const account = await a.accounts.create(anAccount({ credits: 10 }));
      const { rows } = await a.pool.query('select * from gw_accounts where id = $1', [account.id]);
      const written = a.accounts.adjustCredits(account.id, -1);
      const later = { ...rows[0], credits: 7, version: Number(rows[0].version) + 2 };
      (a as unknown as { applyAnnouncement(note: unknown): void }).applyAnnouncement({ table: 'gw_accounts', op: 'update', id: account.id, origin: 'another-instance', row: later });
      await written;
      expect(a.cache.account(account.id)?.credits).toBe(7);
    } finally {
      await a.close();
    }
  });

  it('gw_rebuild_spend recomputes the spend aggregates from ledger rows copied in (store migrate)', async () => {
    const fresh = await createTestDatabase();
    const store = await PostgresStore.open(fresh.url);
    try {
      const account = await store.accounts.create(anAccount({ credits: 100, spendCap: 10 }));
      const key = await store.keys.create(aKey(account.id, { limit: 8, limitReset: 'monthly' }));
      const now = Date.now();
      const insert = 'insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, cost_credits, charged_credits) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)';
      await store.pool.query(insert, ['jsonl-1', now, account.id, key.id, 'mock/echo', 'mock', '/v1/chat/completions', 10, 5, 6]);
      await store.pool.query(insert, ['jsonl-2', now - 400 * 86_400_000, account.id, key.id, 'mock/echo', 'mock', '/v1/chat/completions', 1, 1, 3]);
      await store.pool.query('select gw_rebuild_spend()');
      expect((await store.credits.state(account.id))?.keyTotals.get(key.id)).toBe(9);
      const periods = { day: new Date(now).toISOString().slice(0, 10), week: '', month: new Date(now).toISOString().slice(0, 7) };
      // This month the key has spent 6 of 8: 3 more is refused, 2 is held.
      const hold = (requestId: string, credits: number) => store.credits.hold({ requestId, accountId: account.id, keyId: key.id, credits, tokens: 0, enforce: true, needsBalance: true, periods });
      expect(await hold('req_r1', 3)).toMatchObject({ outcome: 'key_limit', used: 6 });
      expect((await hold('req_r2', 2)).outcome).toBe('ok');
      const { rows } = await store.pool.query<{ month_spent: number; month_tokens: number }>('select month_spent, month_tokens from gw_accounts where id = $1', [account.id]);
      expect(rows[0]).toEqual({ month_spent: 6, month_tokens: 15 });
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  it('leased slices (migration 7): a quarter of what is available at most, none for a small or capped account; a flush moves charges from the lease to the balance once', async () => {
    const fresh = await createTestDatabase();
    const store = await PostgresStore.open(fresh.url);
    try {
      const credits = store.credits!;
      const account = await store.accounts.create(anAccount({ credits: 1_000 }));
      const key = await store.keys.create(aKey(account.id));
      const lease = `lease:${credits.instance}:${account.id}`;
      expect(await credits.lease(lease, account.id, 400, 64)).toEqual({ outcome: 'ok', granted: 250, held: 250 });
      expect(await credits.lease(lease, account.id, 100, 64)).toEqual({ outcome: 'ok', granted: 100, held: 350 });
      expect(await credits.state(account.id)).toMatchObject({ credits: 1_000, reserved: 350, leased: 350 });
      // 650 available: a request by request account below 700.
      expect(await credits.lease(lease, account.id, 100, 700)).toMatchObject({ outcome: 'small', granted: 0, held: 350 });
      const now = Date.now();
      const periods = { day: new Date(now).toISOString().slice(0, 10), week: '2026-11-23', month: new Date(now).toISOString().slice(0, 7) };
      const line = (id: string, charged: number) => ({
        entry: { ts: now, request_id: id, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 2, reasoning_tokens: 0, cached_tokens: 0, cost_credits: charged, charged_credits: charged, estimated: false, aborted: false },
        lease,
        periods,
      });
      const outcomes = await credits.flush([line('req_l1', 30), line('req_l2', 20), line('req_l1', 30)], true);
      expect(outcomes.map((o) => [o.inserted, o.charged])).toEqual([[true, 30], [true, 20], [false, 0]]);
      // Sent again (a restart before the checkpoint moved): charged once.
      expect((await credits.flush([line('req_l2', 20)], true))[0]).toMatchObject({ inserted: false, charged: 0 });
      expect(await credits.state(account.id)).toMatchObject({ credits: 950, reserved: 300, leased: 300 });
      expect((await credits.state(account.id))?.keyTotals.get(key.id)).toBe(50);
      // A fragment goes back (negative want); then the whole lease (release).
      expect(await credits.lease(lease, account.id, -100, 0)).toMatchObject({ granted: -100, held: 200 });
      expect(await credits.release(lease)).toBe(true);
      expect(await credits.state(account.id)).toMatchObject({ credits: 950, reserved: 0, leased: 0 });
      // A line whose lease is gone (swept) is charged like any other: no more than the balance allows.
      const other = await store.accounts.create(anAccount({ credits: 10 }));
      const orphan = { ...line('req_l3', 25), entry: { ...line('req_l3', 25).entry, account_id: other.id } };
      expect((await credits.flush([orphan], true))[0]).toMatchObject({ inserted: true, charged: 10 });
      expect(await credits.state(other.id)).toMatchObject({ credits: 0, reserved: 0 });
      // Accounts with a spend cap (or a token quota) are admitted request by request.
      const capped = await store.accounts.create(anAccount({ credits: 1_000, spendCap: 500 }));
      expect(await credits.lease(`lease:${credits.instance}:${capped.id}`, capped.id, 100, 1)).toMatchObject({ outcome: 'exact', granted: 0 });
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  it('a periodic job is claimed by one instance per interval (media purge, responses expiry)', async () => {
    const fresh = await createTestDatabase();
    const stores = await Promise.all([PostgresStore.open(fresh.url), PostgresStore.open(fresh.url), PostgresStore.open(fresh.url)]);
    try {
      const first = await Promise.all(stores.map((s) => s.claimJob('media-purge', 60_000)));
      expect(first.filter(Boolean)).toHaveLength(1);
      expect(await Promise.all(stores.map((s) => s.claimJob('media-purge', 60_000)))).toEqual([false, false, false]);
      // Another job is claimed on its own; an interval that has passed lets exactly one run again.
      expect((await Promise.all(stores.map((s) => s.claimJob('responses-expiry', 60_000)))).filter(Boolean)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await Promise.all(stores.map((s) => s.claimJob('media-purge', 1_000)))).filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await fresh.drop();
    }
  });
});

describe('postgres store: key uses', () => {
  it('the uses of many keys are written together in one statement, and another instance reads them', async () => {
    const fresh = await createTestDatabase();
    try {
      const store = await PostgresStore.open(fresh.url);
      const account = anAccount();
      await store.accounts.create(account);
      const keys = Array.from({ length: 20 }, () => aKey(account.id));
      for (const key of keys) await store.keys.create(key);
      const statements: string[] = [];
      const query = store.pool.query.bind(store.pool) as (...args: unknown[]) => unknown;
      (store.pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        statements.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text));
        return query(...args);
      };
      await Promise.all(keys.map((key, i) => store.keys.markUsed(key.id, 1_800_000_000_000 + i)));
      expect(statements.filter((s) => s.includes('last_used_at'))).toHaveLength(1);
      // Seen at once by this instance, and written for the others.
      expect((await store.keys.get(keys[7].id))?.lastUsedAt).toBe(1_800_000_000_007);
      const other = await PostgresStore.open(fresh.url);
      expect((await other.keys.list(account.id)).map((k) => k.lastUsedAt).sort()).toEqual(keys.map((_, i) => 1_800_000_000_000 + i));
      // Older than what is stored: not written back.
      await store.keys.markUsed(keys[0].id, 1_700_000_000_000);
      expect((await other.keys.get(keys[0].id))?.lastUsedAt).toBe(1_800_000_000_000);
      await Promise.all([store.close(), other.close()]);
    } finally {
      await fresh.drop();
    }
  });

  // Every batch failed while the database was away, each said so (and the request that noted the use said it again).
  it('a failure writing them is logged once while it lasts, and its end once', async () => {
    const fresh = await createTestDatabase();
    const lines: Array<[string, Record<string, unknown> | undefined]> = [];
    try {
      const store = await PostgresStore.open(fresh.url, { warn: (message, fields) => void lines.push([message, fields]) });
      const account = anAccount();
      await store.accounts.create(account);
      const key = aKey(account.id);
      await store.keys.create(key);
      const query = store.pool.query.bind(store.pool) as (...args: unknown[]) => unknown;
      let away = true;
      (store.pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) =>
        away && String(args[0]).includes('last_used_at') ? Promise.reject(new Error('read ECONNRESET')) : query(...args);
      for (let i = 1; i <= 3; i += 1) await expect(store.keys.markUsed(key.id, 1_800_000_000_000 + i)).rejects.toThrow('ECONNRESET');
      expect(lines).toEqual([['store: key uses could not be written to PostgreSQL (logged once a minute while it fails)', { error: 'Error: read ECONNRESET', failures: 1 }]]);
      away = false;
      await store.keys.markUsed(key.id, 1_800_000_000_009);
      await store.keys.markUsed(key.id, 1_800_000_000_010);
      expect(lines.slice(1)).toEqual([['store: key uses written to PostgreSQL again', { failures: 3 }]]);
      await store.close();
    } finally {
      await fresh.drop();
    }
  });
});
