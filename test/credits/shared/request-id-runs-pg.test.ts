import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedCredits, type SharedHold } from '../../../src/credits/index.ts';
import { PostgresStore } from '../../../src/store/postgres/index.ts';
import { createLogger } from '../../../src/util/logger.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../../helpers/pg-database.ts';
import { ledgerLine } from '../../helpers/ledger-line.ts';
import { settleLine } from '../../helpers/settle-line.ts';
import { aKey, anAccount } from '../../store/store.case.ts';

/**
 * One request id (a batch line) run three times on PostgreSQL, as d214d28 covers for the file
 * store: on one instance and across two (two stores, two instance ids, two data dirs), settled in
 * different orders, the first settlement's outbox write failing (a full disk). The ledger's unique
 * request id (gw_settle) is what keeps the line charged once.
 */
let db: TestDatabaseWithClient;
const stores: PostgresStore[] = [];
const engines: SharedCredits[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  db = await connectTestDatabase();
  for (let i = 0; i < 2; i++) {
    const store = await PostgresStore.open(db.url);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-runs-pg-'));
    const credits = new SharedCredits({ repo: store.credits!, clock: { now: () => Date.now() }, log: createLogger('silent'), enforce: true, dataDir, beatMs: 1_000, flushMs: 5, leaseIdleMs: 80 });
    await credits.start();
    stores.push(store);
    engines.push(credits);
    dirs.push(dataDir);
  }
}, 60_000);
afterAll(async () => {
  await Promise.all(engines.map((c) => c.close()));
  await Promise.all(stores.map((s) => s.close()));
  await db?.drop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const diskFull = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/**
 * How the first settlement's write fails: `disk`, its line's write(2) at once (alone in flight);
 * `group`, the write of the group it joined, once the other runs have settled; `reply`, its flush
 * committed and the reply lost on the way back (the outbox sends the line again).
 */
type Failure = 'disk' | 'group' | 'reply';

/** Makes the next write of `failure`'s kind on instance `i` fail; returns what ends a group write (else nothing). */
function failNext(i: number, failure: Failure): (() => void) | undefined {
  const credits = engines[i];
  if (failure === 'reply') {
    const repo = stores[i].credits!;
    const flush = repo.flush.bind(repo);
    repo.flush = async (items, enforce) => {
      repo.flush = flush;
      await flush(items, enforce);
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    };
    return undefined;
  }
  const append = credits.outbox.append.bind(credits.outbox);
  let fail: (() => void) | undefined;
  credits.outbox.append = (line) => {
    credits.outbox.append = append;
    if (failure === 'disk') throw diskFull();
    return { line: { ...line, seq: 0 }, written: new Promise<void>((_resolve, reject) => (fail = () => reject(diskFull()))) };
  };
  return failure === 'group' ? () => fail!() : undefined;
}

const COSTS = [10, 20, 30];
let n = 0;

/** Three runs of one request id on the instances `on` (indexes into engines), settled at once in `order`; the first settled has its write fail. */
async function threeRuns(on: readonly number[], order: readonly number[], failure: Failure) {
  const account = await stores[0].accounts.create(anAccount({ credits: 1_000 }));
  // A key with a spend limit: admitted request by request (a hold row per request id).
  const key = await stores[0].keys.create(aKey(account.id, { limit: 500 }));
  await expect.poll(() => stores[1].cache.account(account.id) !== undefined, { timeout: 2_000 }).toBe(true);
  const requestId = `batch_req_runs_${Date.now()}_${++n}`;
  const holds: SharedHold[] = [];
  for (const i of on) holds.push(await engines[i].hold({ requestId, account, key, credits: 40, tokens: 0, needsBalance: true }));
  const failGroup = failNext(on[order[0]], failure);
  const settled = order.map((run, k) => {
    const charge = { cost: COSTS[run], charged: 0 };
    const entry = ledgerLine(requestId, COSTS[run], { account: account.id, key: key.id });
    // The run whose group write is to fail joins a group (not alone in flight); batch lines wait until recorded.
    const options = k === 0 && failure === 'group' ? { now: false } : { now: true, untilRecorded: true };
    return Promise.resolve()
      .then(() => settleLine(engines[on[run]], holds[run], entry, charge, options))
      .then(() => 'recorded' as const, (e: { status?: number }) => e.status);
  });
  if (failGroup) {
    await Promise.all(settled.slice(1));
    failGroup();
  }
  const outcomes = await Promise.all(settled);
  const state = async () => {
    const { rows } = await db.sql.query<{ credits: number; reserved: number; holds: number }>(
      'select credits::float8 as credits, reserved::float8 as reserved, (select count(*)::int from gw_credit_holds where account_id = $1) as holds from gw_accounts where id = $1',
      [account.id],
    );
    return rows[0];
  };
  // A failed write gives its hold back in the background.
  await expect.poll(async () => (await state()).reserved, { timeout: 5_000, interval: 20 }).toBe(0);
  const ledger = await db.sql.query<{ charged: number }>('select charged_credits::float8 as charged from gw_ledger where request_id = $1', [requestId]);
  return { outcomes, state: await state(), charged: ledger.rows.map((r) => r.charged) };
}

describe('one request id run three times on PostgreSQL, the first settlement written or answered badly', () => {
  const orders = [
    [0, 1, 2],
    [2, 0, 1],
    [1, 2, 0],
  ];
  /** Charged once: one ledger row, the balance moved by its cost, nothing held. On one instance its outbox sends in order (`first` is charged); across two, either outbox may send first (any of `recorded`). */
  function chargedOnce(result: Awaited<ReturnType<typeof threeRuns>>, first: number, recorded: readonly number[], oneOutbox: boolean): void {
    expect(result.charged).toHaveLength(1);
    const [cost] = result.charged;
    expect(oneOutbox ? [first] : recorded.map((run) => COSTS[run])).toContain(cost);
    expect(result.state).toEqual({ credits: 1_000 - cost, reserved: 0, holds: 0 });
  }
  for (const [where, on] of [
    ['on one instance', [0, 0, 0]],
    ['across two instances', [0, 1, 0]],
  ] as const) {
    const oneOutbox = new Set(on).size === 1;
    for (const order of orders) {
      const named = order.map((r) => r + 1).join(', ');
      for (const failure of ['disk', 'group'] as const) {
        it(`${where}, settled in the order ${named}, the first one's ${failure === 'disk' ? 'write' : 'group write'} failing: it answers 503, the line is charged once (by another run), every hold goes back`, async () => {
          const result = await threeRuns(on, order, failure);
          expect(result.outcomes).toEqual([503, 'recorded', 'recorded']);
          chargedOnce(result, COSTS[order[1]], order.slice(1), oneOutbox);
        });
      }
      it(`${where}, settled in the order ${named}, the first one's flush committed and its reply lost: sent again, the line is charged once, every hold goes back`, async () => {
        const result = await threeRuns(on, order, 'reply');
        expect(result.outcomes).toEqual(['recorded', 'recorded', 'recorded']);
        chargedOnce(result, COSTS[order[0]], order, oneOutbox);
      });
    }
  }
});
