import { settleLine } from '../helpers/settle-line.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { SharedCredits } from '../../src/credits/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { PostgresStore } from '../../src/store/postgres/index.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { aKey, anAccount } from './store.case.ts';

/**
 * What an upstream reports as usage reaches the database through an instance's settlement
 * outbox: one line PostgreSQL cannot take would fail its whole group, again and again, and
 * every later settlement of the instance waits behind it.
 */
let db: TestDatabaseWithClient;
let store: PostgresStore;
let sql: pg.Client;
beforeAll(async () => {
  db = await connectTestDatabase();
  store = await PostgresStore.open(db.url);
  sql = db.sql;
}, 60_000);
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe('postgres credits: ledger lines as upstreams report them', () => {
  it('fractional, negative or huge token counts (an upstream usage object) settle as whole, bounded counts; they never fail a flush', async () => {
    const credits = store.credits!;
    const account = await store.accounts.create(anAccount({ credits: 1_000, monthlyTokenQuota: 1_000_000 }));
    const key = await store.keys.create(aKey(account.id));
    const now = Date.now();
    const periods = { day: new Date(now).toISOString().slice(0, 10), week: '2026-11-23', month: new Date(now).toISOString().slice(0, 7) };
    const line = (id: string, tokens: { input_tokens: number; output_tokens: number; reasoning_tokens?: number; cached_tokens?: number }) => ({
      entry: { ts: now, request_id: id, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', reasoning_tokens: 0, cached_tokens: 0, ...tokens, cost_credits: 1, charged_credits: 1, estimated: false, aborted: false },
      periods,
    });
    const outcomes = await credits.flush(
      [line('req_frac', { input_tokens: 10.5, output_tokens: 2.25, reasoning_tokens: 0.5 }), line('req_neg', { input_tokens: -5, output_tokens: 3 }), line('req_huge', { input_tokens: 1e20, output_tokens: 1, cached_tokens: 1e300 }), line('req_ok', { input_tokens: 4, output_tokens: 6 })],
      true,
    );
    expect(outcomes.map((o) => o.inserted)).toEqual([true, true, true, true]);
    const { rows } = await sql.query<{ request_id: string; input_tokens: string; output_tokens: string; reasoning_tokens: string; cached_tokens: string }>(
      'select request_id, input_tokens, output_tokens, reasoning_tokens, cached_tokens from gw_ledger order by request_id',
    );
    const byId = Object.fromEntries(rows.map((r) => [r.request_id, [r.input_tokens, r.output_tokens, r.reasoning_tokens, r.cached_tokens].map(Number)]));
    expect(byId.req_frac).toEqual([11, 2, 1, 0]);
    expect(byId.req_neg).toEqual([0, 3, 0, 0]);
    expect(byId.req_ok).toEqual([4, 6, 0, 0]);
    expect(byId.req_huge[0]).toBeGreaterThan(1e9);
    expect(byId.req_huge[0]).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    // The month's token count never goes down (a negative count would give quota back).
    const month = await sql.query<{ month_tokens: string }>('select month_tokens from gw_accounts where id = $1', [account.id]);
    expect(Number(month.rows[0].month_tokens)).toBe(11 + 2 + 0 + 3 + byId.req_huge[0] + 1 + 4 + 6);
    // The exact path's settlement (gw_settle) takes such lines too.
    const settled = await credits.settle({ entry: { ...line('req_exact', { input_tokens: 0.1, output_tokens: 7.9 }).entry }, enforce: true, periods });
    expect(settled.inserted).toBe(true);
  });

  it("an answer's id or finish reason a text column refuses (a NUL, a lone surrogate) is left out of the row, not a failed flush; a printable one is kept", async () => {
    const account = await store.accounts.create(anAccount({ credits: 1_000 }));
    const key = await store.keys.create(aKey(account.id));
    const now = Date.now();
    const periods = { day: new Date(now).toISOString().slice(0, 10), week: '2026-11-23', month: new Date(now).toISOString().slice(0, 7) };
    const line = (id: string, answer: { answer_id?: string; finish_reason?: string }) => ({
      entry: { ts: now, request_id: id, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 1, charged_credits: 1, estimated: false, aborted: false, streamed: true, latency_ms: 40, ...answer },
      periods,
    });
    const outcomes = await store.credits!.flush([line('req_ans_nul', { answer_id: 'chatcmpl-\u0000x', finish_reason: 'st\u0000op' }), line('req_ans_surrogate', { answer_id: 'chatcmpl-\ud800' }), line('req_ans_ok', { answer_id: 'chatcmpl-ok', finish_reason: 'stop' })], true);
    expect(outcomes.map((o) => o.inserted)).toEqual([true, true, true]);
    const { rows } = await sql.query('select request_id, answer_id, finish_reason, streamed, latency_ms from gw_ledger where account_id = $1 order by request_id', [account.id]);
    expect(rows).toEqual([
      { request_id: 'req_ans_nul', answer_id: null, finish_reason: null, streamed: true, latency_ms: 40 },
      { request_id: 'req_ans_ok', answer_id: 'chatcmpl-ok', finish_reason: 'stop', streamed: true, latency_ms: 40 },
      { request_id: 'req_ans_surrogate', answer_id: null, finish_reason: null, streamed: true, latency_ms: 40 },
    ]);
  });

  it('a line whose data PostgreSQL refuses is kept aside by the outbox (marked refused), and the settlements around it are charged', async () => {
    const account = await store.accounts.create(anAccount({ credits: 1_000 }));
    const key = await store.keys.create(aKey(account.id));
    const now = Date.now();
    const entry = (id: string, model = 'mock/echo') => ({ ts: now, request_id: id, account_id: account.id, key_id: key.id, model, provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 2, charged_credits: 2, estimated: false, aborted: false });
    const periods = { day: new Date(now).toISOString().slice(0, 10), week: '2026-11-23', month: new Date(now).toISOString().slice(0, 7) };
    // A NUL character has no place in a text column: the call fails on the data, not the connection.
    await expect(store.credits!.flush([{ entry: entry('req_nul', 'mock/\u0000echo'), periods }], true)).rejects.toMatchObject({ refused: true });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-pgl-'));
    const shared = new SharedCredits({ repo: store.credits!, clock: { now: () => Date.now() }, log: createLogger('silent'), enforce: true, dataDir, beatMs: 60_000, flushMs: 5 });
    try {
      await shared.start();
      for (const [id, model] of [['req_a', 'mock/echo'], ['req_nul2', 'mock/\u0000echo'], ['req_b', 'mock/echo']]) settleLine(shared, undefined, entry(id, model), { cost: 2, charged: 2 }, { now: true });
      await expect.poll(async () => (await sql.query('select request_id from gw_ledger where account_id = $1 order by request_id', [account.id])).rows.map((r) => r.request_id), { timeout: 5_000, interval: 20 }).toEqual(['req_a', 'req_b']);
      expect(await store.credits!.state(account.id)).toMatchObject({ credits: 996 });
      const aside = fs.readFileSync(path.join(dataDir, 'settlements.rejected.jsonl'), 'utf8');
      expect(aside).toContain('req_nul2');
      expect(shared.outbox.unshipped()).toHaveLength(0);
    } finally {
      await shared.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a withdrawal racing a leased slice: what the slice admitted is charged from the lease only as far as the balance goes (never below zero)', async () => {
    const credits = store.credits!;
    const account = await store.accounts.create(anAccount({ credits: 1_000 }));
    const key = await store.keys.create(aKey(account.id));
    const lease = `lease:${credits.instance}:${account.id}`;
    expect(await credits.lease(lease, account.id, 250, 1)).toMatchObject({ outcome: 'ok', granted: 250 });
    // Another instance holds a request of 100 of its own.
    expect((await credits.holdMany([{ requestId: 'req_other', accountId: account.id, keyId: key.id, credits: 100, tokens: 0, enforce: true, needsBalance: true, periods: { day: '2026-11-24', week: '2026-11-23', month: '2026-11' } }]))[0].outcome).toBe('ok');
    // The operator withdraws all but 150 (the admin check sees the balance, not what slices hold).
    await store.accounts.adjustCredits(account.id, -850);
    const now = Date.now();
    const periods = { day: new Date(now).toISOString().slice(0, 10), week: '2026-11-23', month: new Date(now).toISOString().slice(0, 7) };
    const line = (id: string, charged: number) => ({
      entry: { ts: now, request_id: id, account_id: account.id, key_id: key.id, model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: charged, charged_credits: charged, estimated: false, aborted: false },
      lease,
      periods,
    });
    // The slice had admitted 200 of requests before it heard of the withdrawal: 150 is all there is, and 100 of it is held by the other request.
    const outcomes = await credits.flush([line('req_s1', 120), line('req_s2', 80)], true);
    const charged = outcomes.reduce((s, o) => s + o.charged, 0);
    const state = await credits.state(account.id);
    expect(state!.credits).toBeGreaterThanOrEqual(0);
    // The other request's hold stays covered: it may still charge its 100.
    expect(state!.credits).toBeGreaterThanOrEqual(100);
    expect(charged).toBeCloseTo(150 - state!.credits, 6);
    const ledger = await sql.query<{ sum: string }>('select sum(charged_credits) as sum from gw_ledger where account_id = $1', [account.id]);
    expect(Number(ledger.rows[0].sum)).toBeCloseTo(charged, 6);
    // The lease goes back; the books: credits - reserved is what is left for anyone.
    await credits.release(lease);
    expect(await credits.state(account.id)).toMatchObject({ reserved: 100, leased: 0 });
  });
});
