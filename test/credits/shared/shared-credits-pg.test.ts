import { settleLine } from '../../helpers/settle-line.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedCredits, type SharedEntry, type SharedHold } from '../../../src/credits/index.ts';
import { PostgresStore } from '../../../src/store/postgres/index.ts';
import type { AccountRecord, ApiKeyRecord } from '../../../src/store/types.ts';
import { createLogger } from '../../../src/util/logger.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../../helpers/pg-database.ts';
import { aKey, anAccount } from '../../store/store.case.ts';
import { ledgerLine } from '../../helpers/ledger-line.ts';

/**
 * The money path on the machine's PostgreSQL with two instances in one process (two stores:
 * two pools, two instance ids, two data dirs): many requests of random size, some costing more
 * than they held, some released unused, slices leased, recalled, shrunk and given back while
 * idle — whatever interleaving comes out, the books must balance.
 */
let db: TestDatabaseWithClient;
let sql: pg.Client;
const stores: PostgresStore[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  db = await connectTestDatabase();
  sql = db.sql;
}, 60_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await db?.drop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function instance(options: { dataDir?: string; staleMs?: number; logged?: string[]; leaseIdleMs?: number } = {}): Promise<{ store: PostgresStore; credits: SharedCredits; dataDir: string }> {
  const store = await PostgresStore.open(db.url);
  stores.push(store);
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gw-scpg-'));
  dirs.push(dataDir);
  const staleMs = options.staleMs ?? 30_000;
  const log = options.logged ? createLogger('warn', (line) => void options.logged!.push(line)) : createLogger('silent');
  const credits = new SharedCredits({ repo: store.credits!, clock: { now: () => Date.now() }, log, enforce: true, dataDir, beatMs: Math.min(1_000, staleMs / 5), staleMs, flushMs: 5, leaseIdleMs: options.leaseIdleMs ?? 80 });
  await credits.start();
  return { store, credits, dataDir };
}

const entry = (account: AccountRecord, key: ApiKeyRecord, id: string, cost: number): SharedEntry => ledgerLine(id, cost, { account: account.id, key: key.id });

/** A small deterministic generator (a failure can be replayed). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('shared credits on PostgreSQL, two instances', () => {
  it('random admissions, overruns, releases and idle returns: never below zero, every charge in the ledger once, nothing left held', async () => {
    const a = await instance();
    const b = await instance();
    const account = await a.store.accounts.create(anAccount({ credits: 3_000 }));
    const key = await a.store.keys.create(aKey(account.id));
    await expect.poll(() => b.store.cache.account(account.id) !== undefined, { timeout: 2_000 }).toBe(true);
    const random = rng(Number(process.env.SEED ?? 20261124));
    const settled: string[] = [];
    let refused = 0;
    const one = async (i: number): Promise<void> => {
      const on = random() < 0.5 ? a : b;
      // Sizes from 1 to 40 credits (so the account is drained and slices meet their low water).
      const size = 1 + Math.floor(random() * 40);
      const outcome = random();
      const delay = Math.floor(random() * 15);
      let hold: SharedHold;
      try {
        hold = await on.credits.hold({ requestId: `req_${i}`, account, key, credits: size, tokens: 0, needsBalance: true });
      } catch (error) {
        expect((error as { code?: string }).code).toBe('insufficient_balance');
        refused += 1;
        return;
      }
      await new Promise((r) => setTimeout(r, delay));
      if (outcome < 0.1) {
        on.credits.release(hold);
        return;
      }
      // Most cost less than they held; a fifth cost up to twice as much.
      const cost = Math.round(size * (outcome < 0.3 ? 1 + random() : 0.2 + random() * 0.8) * 1e6) / 1e6;
      settled.push(hold.requestId);
      await settleLine(on.credits, hold, entry(account, key, hold.requestId, cost), { cost, charged: 0 }, { now: random() < 0.5 });
    };
    // Meanwhile, as any other client of the database sees it: what is held is what the hold rows say, and never more than the balance.
    const samples: Array<{ credits: number; reserved: number; held: number }> = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await sql.query<{ credits: string; reserved: string; held: string }>(
          'select a.credits, a.reserved, (select coalesce(sum(h.credits), 0) from gw_credit_holds h where h.account_id = a.id) as held from gw_accounts a where a.id = $1',
          [account.id],
        );
        samples.push({ credits: Number(rows[0].credits), reserved: Number(rows[0].reserved), held: Number(rows[0].held) });
        await new Promise((r) => setTimeout(r, 3));
      }
    })();
    // Waves of concurrent requests with pauses long enough for idle slices to go back in between.
    let n = 0;
    for (let wave = 0; wave < 6; wave++) {
      await Promise.all(Array.from({ length: 60 }, () => one(n++)));
      await new Promise((r) => setTimeout(r, wave % 2 === 0 ? 20 : 200));
    }
    sampling = false;
    await sampler;
    expect(samples.length).toBeGreaterThan(20);
    for (const s of samples) {
      expect(s.reserved).toBeCloseTo(s.held, 6);
      expect(s.reserved).toBeLessThanOrEqual(s.credits + 1e-6);
      expect(s.credits).toBeGreaterThanOrEqual(0);
    }
    await a.credits.close();
    await b.credits.close();
    expect(refused).toBeGreaterThan(0);
    const acct = (await sql.query<{ credits: string; reserved: string; reserved_tokens: string }>('select credits, reserved, reserved_tokens from gw_accounts where id = $1', [account.id])).rows[0];
    const ledger = (await sql.query<{ request_id: string; charged: string }>('select request_id, charged_credits as charged from gw_ledger where account_id = $1', [account.id])).rows;
    const holds = (await sql.query<{ request_id: string; credits: string }>('select request_id, credits from gw_credit_holds where account_id = $1', [account.id])).rows;
    const charged = ledger.reduce((s, r) => s + Number(r.charged), 0);
    expect(Number(acct.credits)).toBeGreaterThanOrEqual(0);
    // The ledger sum is the balance drop, to the millionth.
    expect(Math.round((3_000 - Number(acct.credits)) * 1e6)).toBe(Math.round(charged * 1e6));
    // Every settlement is in the ledger, once (the primary key), and nothing else is.
    expect(ledger.map((r) => r.request_id).sort()).toEqual([...settled].sort());
    // A clean stop leaves nothing held: no hold rows, no reserved credits.
    expect(holds).toEqual([]);
    expect(Number(acct.reserved)).toBe(0);
  }, 60_000);

  it('an instance dies with answered charges in its outbox and a leased slice; the others sweep its lease and drain the account; its restart sends the lines: never below zero, every answered charge in the ledger, nothing left held', async () => {
    const staleMs = 600;
    const a = await instance({ staleMs });
    const c = await instance({ staleMs });
    const account = await a.store.accounts.create(anAccount({ credits: 2_000 }));
    const key = await a.store.keys.create(aKey(account.id));
    await expect.poll(() => c.store.cache.account(account.id) !== undefined, { timeout: 2_000 }).toBe(true);
    // C admits from its slice and answers; then it loses the database for good (its pool ends) before sending.
    const answered: string[] = [];
    const cHolds: SharedHold[] = [];
    for (let i = 0; i < 20; i++) cHolds.push(await c.credits.hold({ requestId: `c_${i}`, account, key, credits: 10, tokens: 0, needsBalance: true }));
    expect(cHolds.every((h) => h.slice)).toBe(true);
    await c.store.close();
    for (const h of cHolds) {
      answered.push(h.requestId);
      void settleLine(c.credits, h, entry(account, key, h.requestId, 12), { cost: 12, charged: 0 }, { now: true });
    }
    const closing = c.credits.close().catch(() => undefined);
    // A sweeps C's lease once C is stale, and drains the account.
    await new Promise((r) => setTimeout(r, staleMs + 300));
    let i = 0;
    for (;;) {
      try {
        const h = await a.credits.hold({ requestId: `a_${i++}`, account, key, credits: 25, tokens: 0, needsBalance: true });
        answered.push(h.requestId);
        await settleLine(a.credits, h, entry(account, key, h.requestId, 25), { cost: 25, charged: 0 }, { now: true });
      } catch (error) {
        expect((error as { code?: string }).code).toBe('insufficient_balance');
        break;
      }
    }
    await closing;
    // C restarts on its data dir (a new instance id): its answered lines are sent first.
    const restarted = await instance({ dataDir: c.dataDir, staleMs });
    await restarted.credits.close();
    await a.credits.close();
    const acct = (await sql.query<{ credits: string; reserved: string }>('select credits, reserved from gw_accounts where id = $1', [account.id])).rows[0];
    const ledger = (await sql.query<{ request_id: string; charged: string }>('select request_id, charged_credits as charged from gw_ledger where account_id = $1', [account.id])).rows;
    const holds = (await sql.query('select request_id from gw_credit_holds where account_id = $1', [account.id])).rows;
    expect(Number(acct.credits)).toBeGreaterThanOrEqual(0);
    expect(Math.round((2_000 - Number(acct.credits)) * 1e6)).toBe(Math.round(ledger.reduce((s, r) => s + Number(r.charged), 0) * 1e6));
    expect(ledger.map((r) => r.request_id).sort()).toEqual([...answered].sort());
    expect(holds).toEqual([]);
    expect(Number(acct.reserved)).toBe(0);
  }, 60_000);

  it('two instances flushing slices of the same accounts at once (the set flush, accounts, keys and leases locked in id order): no deadlock, no retry, the books balance', async () => {
    const logged: string[] = [];
    const a = await instance({ logged });
    const b = await instance({ logged });
    const accounts = await Promise.all(Array.from({ length: 6 }, () => a.store.accounts.create(anAccount({ credits: 100_000 }))));
    const keys = await Promise.all(accounts.map((acct) => a.store.keys.create(aKey(acct.id))));
    await expect.poll(() => accounts.every((acct) => b.store.cache.account(acct.id) !== undefined), { timeout: 2_000 }).toBe(true);
    const random = rng(7);
    let n = 0;
    const settled: string[] = [];
    for (let round = 0; round < 30; round++) {
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          const on = random() < 0.5 ? a : b;
          const k = Math.floor(random() * accounts.length);
          const hold = await on.credits.hold({ requestId: `f_${n++}`, account: accounts[k], key: keys[k], credits: 2, tokens: 0, needsBalance: true });
          settled.push(hold.requestId);
          // Within the reservation: the common (set) flush.
          await settleLine(on.credits, hold, entry(accounts[k], keys[k], hold.requestId, 1 + random()), { cost: 0, charged: 0 }, { now: random() < 0.5 });
        }),
      );
    }
    await a.credits.close();
    await b.credits.close();
    expect(logged.filter((l) => /did not take settlements|deadlock/.test(l))).toEqual([]);
    const { rows } = await sql.query<{ id: string; credits: string; reserved: string; charged: string; n: string }>(
      `select a.id, a.credits, a.reserved, coalesce(sum(l.charged_credits), 0) as charged, count(l.request_id) as n
       from gw_accounts a left join gw_ledger l on l.account_id = a.id where a.id = any($1) group by a.id`,
      [accounts.map((acct) => acct.id)],
    );
    expect(rows.reduce((s, r) => s + Number(r.n), 0)).toBe(settled.length);
    for (const r of rows) {
      expect(Math.round((100_000 - Number(r.credits)) * 1e6)).toBe(Math.round(Number(r.charged) * 1e6));
      expect(Number(r.reserved)).toBe(0);
    }
  }, 60_000);

  it("an operator's withdrawal reaches every instance: their slices of the account go back at once (not after leaseIdleMs), so what they admit next is checked against the new balance", async () => {
    const a = await instance({ leaseIdleMs: 60_000 });
    const b = await instance({ leaseIdleMs: 60_000 });
    const account = await a.store.accounts.create(anAccount({ credits: 100_000 }));
    const key = await a.store.keys.create(aKey(account.id));
    await expect.poll(() => b.store.cache.account(account.id) !== undefined, { timeout: 2_000 }).toBe(true);
    const held = await b.credits.hold({ requestId: 'w_0', account, key, credits: 10, tokens: 0, needsBalance: true });
    expect(held.slice).toBeDefined();
    b.credits.release(held);
    expect((await a.store.credits!.state(account.id))!.leased).toBeGreaterThan(0);
    // All but 50 credits withdrawn through A (the admin check sees the balance, not the slices).
    await a.store.accounts.adjustCredits(account.id, -99_950);
    await expect.poll(async () => (await a.store.credits!.state(account.id))!.leased, { timeout: 2_000, interval: 20 }).toBe(0);
    // B admits against the database now: 5 requests of 10 fit, the sixth does not.
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => b.credits.hold({ requestId: `w_${i + 1}`, account, key, credits: 10, tokens: 0, needsBalance: true })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    for (const o of outcomes) if (o.status === 'fulfilled') b.credits.release(o.value);
    // A withdrawal through the instance that holds the slice: its own slice goes back too.
    await b.store.accounts.adjustCredits(account.id, 99_950);
    // (After a recall the account is admitted request by request for a second, then leased again.)
    let n = 7;
    await expect
      .poll(async () => {
        const h = await b.credits.hold({ requestId: `w_${n++}`, account, key, credits: 10, tokens: 0, needsBalance: true });
        b.credits.release(h);
        return h.slice !== undefined && (await b.store.credits!.state(account.id))!.leased > 0;
      }, { timeout: 4_000, interval: 100 })
      .toBe(true);
    await b.store.accounts.adjustCredits(account.id, -99_950);
    await expect.poll(async () => (await b.store.credits!.state(account.id))!.leased, { timeout: 2_000, interval: 20 }).toBe(0);
    await a.credits.close();
    await b.credits.close();
  }, 30_000);
});
