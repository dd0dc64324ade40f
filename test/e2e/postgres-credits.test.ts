import { randomBytes } from 'node:crypto';
import path from 'node:path';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** 1 credit per output token, input free: a request with max_tokens 4 holds 4 credits and (echoing a long prompt) costs 4. */
const PRICING = { input: 0, output: 1000 };
const PER_REQUEST = 4;
/** store.instanceStaleMs on every instance: a killed one's holds come back after 10 s, not the default 30 (beats every 1.7 s). */
const STALE_MS = 10_000;

/**
 * Two gateway processes on one PostgreSQL database and one Redis, as behind a load balancer:
 * credits, the ledger, key spend limits and the account cap hold across them.
 */
let db: TestDatabaseWithClient;
let a: SpawnedGateway;
let b: SpawnedGateway;
let configFile: string;
let sql: pg.Client;

beforeAll(async () => {
  db = await connectTestDatabase();
  const dir = tempDir('gw-pgc-');
  configFile = writeConfig(dir, {
    store: { postgres: db.url, instanceStaleMs: STALE_MS },
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PRICING }] } },
  });
  [a, b] = await Promise.all([spawnGateway({ configFile, dataDir: path.join(dir, 'a') }), spawnGateway({ configFile, dataDir: path.join(dir, 'b') })]);
  sql = db.sql;
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
});

const cli = async (g: SpawnedGateway, args: string[]) => {
  const result = await runCli(['--config', configFile, '--data-dir', g.dataDir, ...args]);
  return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
};

async function accountWithKey(g: SpawnedGateway, email: string, credits: number, keyArgs: string[] = [], accountArgs: string[] = []): Promise<{ key: string; keyId: string; accountId: string }> {
  const made = await cli(g, ['accounts', 'create', '--email', email, '--credits', String(credits), '--tier', 'enterprise', ...accountArgs]);
  expect(made.code, made.err).toBe(0);
  const created = await cli(g, ['keys', 'create', '--account', email, '--json', ...keyArgs]);
  expect(created.code, created.err).toBe(0);
  const { id, key } = JSON.parse(created.out) as { id: string; key: string };
  const { rows } = await sql.query<{ account_id: string }>('select account_id from gw_api_keys where id = $1', [id]);
  return { key, keyId: id, accountId: rows[0].account_id };
}

interface Outcome {
  status: number;
  requestId: string | null;
  code?: string;
  scope?: string;
}

async function chat(g: SpawnedGateway, key: string, i: number): Promise<Outcome> {
  const res = await fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: `request ${i}: a prompt long enough to fill four output tokens` }], max_tokens: PER_REQUEST }),
  });
  const body = (await res.json()) as { error?: { code: string; details?: { scope?: string } } };
  return { status: res.status, requestId: res.headers.get('x-request-id'), code: body.error?.code, scope: body.error?.details?.scope };
}

async function ledgerOf(accountId: string): Promise<{ rows: number; charged: number; requestIds: string[] }> {
  const { rows } = await sql.query<{ request_id: string; charged_credits: string }>('select request_id, charged_credits from gw_ledger where account_id = $1', [accountId]);
  return { rows: rows.length, charged: rows.reduce((n, r) => n + Number(r.charged_credits), 0), requestIds: rows.map((r) => r.request_id) };
}

async function accountRow(accountId: string): Promise<{ credits: number; reserved: number; reserved_tokens: number }> {
  const { rows } = await sql.query<{ credits: string; reserved: string; reserved_tokens: string }>('select credits, reserved, reserved_tokens from gw_accounts where id = $1', [accountId]);
  return { credits: Number(rows[0].credits), reserved: Number(rows[0].reserved), reserved_tokens: Number(rows[0].reserved_tokens) };
}

describe('credits across two instances on one PostgreSQL', () => {
  it('200 concurrent priced requests over both instances against credit for 100: never overspent, the ledger sum is the balance drop', async () => {
    const { key, accountId } = await accountWithKey(a, 'overspend@example.test', 100 * PER_REQUEST);
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(i % 2 === 0 ? a : b, key, i)));
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status !== 200);
    expect(ok.length).toBeLessThanOrEqual(100);
    expect(ok.length).toBeGreaterThanOrEqual(50);
    // Both instances served some of them.
    expect(outcomes.filter((o, i) => o.status === 200 && i % 2 === 0).length).toBeGreaterThan(0);
    expect(outcomes.filter((o, i) => o.status === 200 && i % 2 === 1).length).toBeGreaterThan(0);
    expect(new Set(refused.map((o) => `${o.status} ${o.code}`))).toEqual(new Set(['402 insufficient_balance']));

    // Settlements reach the database from each instance's outbox within its flush window, and
    // leased slices go back once unused (store.leaseIdleMs, 1 s): then nothing is held.
    await expect.poll(async () => (await accountRow(accountId)).reserved, { timeout: 5_000, interval: 50 }).toBe(0);
    await expect.poll(async () => (await ledgerOf(accountId)).rows, { timeout: 5_000, interval: 50 }).toBe(ok.length);
    const ledger = await ledgerOf(accountId);
    const row = await accountRow(accountId);
    expect(row.credits).toBeGreaterThanOrEqual(0);
    expect(row).toMatchObject({ reserved: 0, reserved_tokens: 0 });
    expect(100 * PER_REQUEST - row.credits).toBeCloseTo(ledger.charged, 6);
    // Every answered request has exactly one ledger row, and nothing else has one.
    expect(ledger.rows).toBe(ok.length);
    expect(new Set(ledger.requestIds)).toEqual(new Set(ok.map((o) => o.requestId)));
    expect(ledger.charged).toBeCloseTo(ok.length * PER_REQUEST, 6);

    // Both instances report the same balance and usage from the shared ledger (official client, no SDK changes).
    for (const g of [a, b]) {
      const res = await fetch(`${g.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
      const { data } = (await res.json()) as { data: { credits: { balance: number; reserved: number; total_used: number } } };
      expect(data.credits).toMatchObject({ balance: row.credits, reserved: 0, total_used: ledger.charged });
      const activity = (await (await fetch(`${g.url}/v1/activity`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: Array<{ requests: number; usage_credits: number }> };
      expect(activity.data.reduce((n, r) => n + r.requests, 0)).toBe(ok.length);
    }
    // `gateway usage` (through B's server) reads the shared ledger too.
    const report = await cli(b, ['usage', '--account', 'overspend@example.test', '--json']);
    expect(report.code, report.err).toBe(0);
    const { accounts } = JSON.parse(report.out) as { accounts: Array<{ balance: number; spent_credits: number; requests: number }> };
    expect(accounts[0]).toMatchObject({ balance: row.credits, spent_credits: ledger.charged, requests: ok.length });
    const client = new OpenAI({ apiKey: key, baseURL: `${b.url}/v1`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'one more' }], max_tokens: 400 * PER_REQUEST }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_balance');
  }, 60_000);

  it("a key's spend limit holds across instances, and GET /v1/key on either reports the shared spend", async () => {
    const { key, keyId, accountId } = await accountWithKey(a, 'keylimit@example.test', 1_000, ['--limit', String(10 * PER_REQUEST), '--limit-reset', 'daily']);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(i % 2 === 0 ? a : b, key, i)));
    const ok = outcomes.filter((o) => o.status === 200);
    expect(ok.length).toBeLessThanOrEqual(10);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code} ${o.scope}`))).toEqual(new Set(['402 insufficient_balance key_limit']));
    // In the database once each instance's outbox is sent (its flush window).
    await expect.poll(async () => (await ledgerOf(accountId)).rows, { timeout: 5_000, interval: 50 }).toBe(ok.length);
    const ledger = await ledgerOf(accountId);
    expect(ledger.charged).toBeLessThanOrEqual(10 * PER_REQUEST);
    expect(1_000 - (await accountRow(accountId)).credits).toBeCloseTo(ledger.charged, 6);
    for (const g of [a, b]) {
      const view = (await (await fetch(`${g.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string; usage_credits: { daily: number; total: number }; limit_credits: { used: number; remaining: number; reserved: number } } };
      expect(view.data.id).toBe(keyId);
      expect(view.data.usage_credits).toMatchObject({ daily: ledger.charged, total: ledger.charged });
      expect(view.data.limit_credits).toMatchObject({ used: ledger.charged, reserved: 0, remaining: 10 * PER_REQUEST - ledger.charged });
    }
  }, 60_000);

  it("the account's monthly spend cap and token quota hold across instances", async () => {
    const capped = await accountWithKey(a, 'cap@example.test', 1_000, [], ['--spend-cap', String(5 * PER_REQUEST)]);
    const capOutcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 === 0 ? a : b, capped.key, i)));
    expect(capOutcomes.filter((o) => o.status === 200).length).toBeLessThanOrEqual(5);
    await expect.poll(async () => (await ledgerOf(capped.accountId)).rows, { timeout: 5_000, interval: 50 }).toBe(capOutcomes.filter((o) => o.status === 200).length);
    expect(new Set(capOutcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code} ${o.scope}`))).toEqual(new Set(['402 insufficient_balance account_spend_cap']));
    expect((await ledgerOf(capped.accountId)).charged).toBeLessThanOrEqual(5 * PER_REQUEST);

    // Each request holds its estimated input (~16 tokens) against a quota of 100; output tokens are not held (as on one instance).
    const quota = await accountWithKey(a, 'quota@example.test', 1_000, [], ['--quota', '100']);
    const quotaOutcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(i % 2 === 0 ? a : b, quota.key, i)));
    expect(new Set(quotaOutcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code}`))).toEqual(new Set(['429 quota_exceeded']));
    const okCount = quotaOutcomes.filter((o) => o.status === 200).length;
    expect(okCount).toBeGreaterThan(0);
    expect(okCount).toBeLessThanOrEqual(7);
    await expect.poll(async () => (await ledgerOf(quota.accountId)).rows, { timeout: 5_000, interval: 50 }).toBe(okCount);
    const { rows } = await sql.query<{ input: string; n: string }>('select coalesce(sum(input_tokens), 0) as input, count(*) as n from gw_ledger where account_id = $1', [quota.accountId]);
    expect(Number(rows[0].n)).toBe(okCount);
    // The estimate is within a few tokens of the count: the input admitted stays at the quota plus that error.
    expect(Number(rows[0].input)).toBeLessThanOrEqual(100 + okCount * 4);
  }, 60_000);

  it('the holds of an instance killed with kill -9 mid-request are given back by the other instance', async () => {
    const { key, accountId } = await accountWithKey(a, 'crash@example.test', 100 * PER_REQUEST);
    const dir = tempDir('gw-pgc-kill-');
    // A third instance whose streams are slow enough to be cut by the kill.
    const slowConfig = writeConfig(dir, {
      store: { postgres: db.url, instanceStaleMs: STALE_MS },
      limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
      providers: { mock: { plugin: 'mock', chunkDelayMs: 2_000, models: [{ id: 'echo', pricing: PRICING }] } },
    });
    const c = await spawnGateway({ configFile: slowConfig, dataDir: path.join(dir, 'c') });
    try {
      const streams = Array.from({ length: 5 }, (_, i) =>
        fetch(`${c.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock/echo', stream: true, messages: [{ role: 'user', content: `slow ${i}: a prompt long enough to fill four output tokens` }], max_tokens: PER_REQUEST }),
        }).then((r) => r.body?.getReader().read().catch(() => undefined), () => undefined),
      );
      // The five are admitted from C's leased slice of the account: held there (the lease hold), at least their 20 credits.
      await expect.poll(async () => (await accountRow(accountId)).reserved, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(5 * PER_REQUEST);
      await expect.poll(async () => (await sql.query('select 1 from gw_credit_holds where account_id = $1', [accountId])).rows.length, { timeout: 10_000, interval: 50 }).toBeGreaterThan(0);
      // A background top-up of the slice lands: wait until the hold has stopped moving (the same
      // for half a second) rather than assume it is in after one 500 ms sleep.
      let held = (await accountRow(accountId)).reserved;
      for (let same = 0, deadline = Date.now() + 10_000; same < 5 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 100));
        const now = (await accountRow(accountId)).reserved;
        same = now === held ? same + 1 : 0;
        held = now;
      }
      await c.kill();
      await Promise.allSettled(streams);
      // Held by a dead instance: B (or A) sweeps them once C has not been seen for STALE_MS
      // (well before the default 30 s: the wait below fails if store.instanceStaleMs is ignored).
      expect((await accountRow(accountId)).reserved).toBe(held);
      await expect.poll(async () => (await accountRow(accountId)).reserved, { timeout: 25_000, interval: 250 }).toBe(0);
      expect(await accountRow(accountId)).toMatchObject({ reserved_tokens: 0, credits: 100 * PER_REQUEST });
      expect((await ledgerOf(accountId)).rows).toBe(0);
      const { rows } = await sql.query('select 1 from gw_credit_holds where account_id = $1', [accountId]);
      expect(rows).toHaveLength(0);
    } finally {
      await c.kill();
    }
  }, 90_000);
});
