import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldGroups } from '../../../src/credits/shared/hold-groups.ts';
import { PostgresStore } from '../../../src/store/postgres/index.ts';
import type { CreditsRepo, FlushItem, HoldRequest } from '../../../src/store/index.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../../helpers/pg-database.ts';
import { aKey, anAccount } from '../../store/store.case.ts';

/**
 * An instance whose admission call failed after the database took it gives that hold back after
 * each heartbeat for two minutes (HoldGroups, 398166e). A batch line is admitted under the same
 * request id wherever it runs: re-admitted meanwhile on another instance, its hold there is that
 * instance's (gw_reserve takes the old one over), and the first instance must not give it back.
 * Two instances (two stores, two instance ids) on the machine's PostgreSQL.
 */
let db: TestDatabaseWithClient;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  db = await connectTestDatabase();
  stores.push(await PostgresStore.open(db.url), await PostgresStore.open(db.url));
}, 60_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await db?.drop();
});

/** The repo with its admission's reply lost on the way back: the database took the hold, the caller sees the connection reset. */
function replyLost(repo: CreditsRepo): CreditsRepo {
  return Object.assign(Object.create(repo) as CreditsRepo, {
    async holdMany(requests: readonly HoldRequest[]) {
      await repo.holdMany(requests);
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    },
  });
}

/** A fresh account with a key of a spend limit (admitted request by request) and a batch line's admission of 79 credits on it. */
async function aLine(requestId: string, credits = 1_000) {
  const account = await stores[0].accounts.create(anAccount({ credits }));
  const key = await stores[0].keys.create(aKey(account.id, { limit: 500 }));
  const now = new Date();
  const periods = { day: now.toISOString().slice(0, 10), week: '2026-11-23', month: now.toISOString().slice(0, 7) };
  const line: HoldRequest = { requestId, accountId: account.id, keyId: key.id, credits: 79, tokens: 0, enforce: true, needsBalance: true, periods };
  return { account, key, now, periods, line };
}

describe('the give-back of a failed admission', () => {
  it('leaves alone the hold another instance took for the same request id meanwhile (a batch line re-admitted there)', async () => {
    const [a, b] = stores;
    const { account, line } = await aLine('batch_req_line_1');
    const held = async () => ({ holds: await db.sql.query('select request_id, instance, credits::float8 as credits from gw_credit_holds').then((r) => r.rows), reserved: (await a.credits!.state(account.id))?.reserved });

    const groupsA = new HoldGroups(replyLost(a.credits!));
    await expect(groupsA.send(line)).rejects.toThrow('ECONNRESET');
    expect(await held()).toEqual({ holds: [{ request_id: line.requestId, instance: a.credits!.instance, credits: 79 }], reserved: 79 });
    // The line runs on B (A's batch lease lapsed): B admits it under the same id and takes the hold over.
    expect((await b.credits!.hold(line)).outcome).toBe('ok');
    const onB = { holds: [{ request_id: line.requestId, instance: b.credits!.instance, credits: 79 }], reserved: 79 };
    expect(await held()).toEqual(onB);
    // A's heartbeat gives back what its failed admission may have left: not B's hold (before: released, B's line ran unheld).
    expect(await groupsA.releaseAbandoned()).toBe(0);
    expect(await held()).toEqual(onB);
    // B's own release still gives it back.
    expect(await b.credits!.release(line.requestId)).toBe(true);
    expect(await held()).toEqual({ holds: [], reserved: 0 });
  });
});

describe('the settlement of a line another instance runs again', () => {
  it("charges the line once and leaves that instance's hold alone; its own settlement then gives it back", async () => {
    const [a, b] = stores;
    const { account, key, now, periods, line } = await aLine('batch_req_line_2');
    const entry = { ts: now.getTime(), request_id: line.requestId, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 10, output_tokens: 5, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 30, charged_credits: 30, estimated: false, aborted: false };
    // As the outbox sends an exact hold's line: the hold it settles is the one its instance took.
    const flushed = (repo: CreditsRepo, cost: number) => repo.flush([{ entry: { ...entry, cost_credits: cost, charged_credits: cost }, holder: repo.instance, periods } as FlushItem], true);
    const held = async () => ({ holds: await db.sql.query('select request_id, instance, credits::float8 as credits from gw_credit_holds').then((r) => r.rows), state: await a.credits!.state(account.id) });

    expect((await a.credits!.hold(line)).outcome).toBe('ok');
    // A's batch lease lapsed while its run was slow: B runs the line again under the same id and takes the hold over.
    expect((await b.credits!.hold(line)).outcome).toBe('ok');
    const onB = [{ request_id: line.requestId, instance: b.credits!.instance, credits: 79 }];
    // A's run ends and settles: the line is charged, B's hold stays (before: released, B's run went on unheld).
    expect(await flushed(a.credits!, 30)).toEqual([{ inserted: true, charged: 30, seq: expect.any(Number) }]);
    expect(await held()).toMatchObject({ holds: onB, state: { credits: 970, reserved: 79, keyReserved: new Map([[key.id, 79]]) } });
    // B's run ends: charged nothing more (the line is billed), and its hold goes back.
    expect(await flushed(b.credits!, 40)).toEqual([{ inserted: false, charged: 0 }]);
    expect(await held()).toMatchObject({ holds: [], state: { credits: 970, reserved: 0, keyReserved: new Map() } });
    expect(await a.credits!.ledger({ accountId: account.id, limit: 10 })).toEqual([expect.objectContaining({ request_id: line.requestId, charged_credits: 30 })]);
  });

  it("charges the line its whole cost on a tight balance: the other run's hold of the same request is this line's, not another request's", async () => {
    const [a, b] = stores;
    // 100 credits: the line's hold of 79 leaves 21 for anything else.
    const { account, key, now, periods, line } = await aLine('batch_req_line_4', 100);
    const entry = { ts: now.getTime(), request_id: line.requestId, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 10, output_tokens: 5, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 30, charged_credits: 30, estimated: false, aborted: false };
    expect((await a.credits!.hold(line)).outcome).toBe('ok');
    expect((await b.credits!.hold(line)).outcome).toBe('ok');
    // A settles with no hold of its own left: B's 79 is held for this very line (charged once), so it is room for it (before: charged 21).
    expect(await a.credits!.flush([{ entry, holder: a.credits!.instance, periods } as FlushItem], true)).toEqual([{ inserted: true, charged: 30, seq: expect.any(Number) }]);
    expect(await a.credits!.state(account.id)).toMatchObject({ credits: 70, reserved: 79 });
    expect(await b.credits!.flush([{ entry: { ...entry, cost_credits: 40, charged_credits: 40 }, holder: b.credits!.instance, periods } as FlushItem], true)).toEqual([{ inserted: false, charged: 0 }]);
    expect(await a.credits!.state(account.id)).toMatchObject({ credits: 70, reserved: 0, keyReserved: new Map() });
  });

  it('a flush of a gateway older than migration 16 (its items name no holder) settles as that version did, during a rolling upgrade', async () => {
    const [a] = stores;
    const { account, key, now, periods, line } = await aLine('batch_req_line_3');
    expect((await a.credits!.hold(line)).outcome).toBe('ok');
    const entry = { ts: now.getTime(), request_id: line.requestId, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 10, output_tokens: 5, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 30, estimated: false, aborted: false };
    const item = { entry, day: periods.day, week: periods.week, month: periods.month };
    const { rows } = await db.sql.query('select inserted, charged from gw_flush($1, true, true)', [JSON.stringify([item])]);
    expect(rows).toEqual([{ inserted: true, charged: 30 }]);
    expect(await a.credits!.state(account.id)).toMatchObject({ credits: 970, reserved: 0 });
  });
});
