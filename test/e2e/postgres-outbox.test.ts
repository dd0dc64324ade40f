import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** 1 credit per output token, input free: a request with max_tokens 4 holds 4 credits and (echoing a long prompt) costs 4. */
const PRICING = { input: 0, output: 1000 };
const PER_REQUEST = 4;

/**
 * The PostgreSQL request path without a database round trip: settlements through each
 * instance's local outbox (`settlements.jsonl`), admission from leased slices of the balance.
 */
let db: TestDatabaseWithClient;
let dir: string;
let sql: pg.Client;
const started: SpawnedGateway[] = [];

function config(extra: Record<string, unknown> = {}): string {
  return writeConfig(fs.mkdtempSync(path.join(dir, 'cfg-')), {
    store: { postgres: db.url, ...extra },
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PRICING }] } },
  });
}

async function start(configFile: string, name: string): Promise<SpawnedGateway> {
  const g = await spawnGateway({ configFile, dataDir: path.join(dir, name) });
  started.push(g);
  return g;
}

beforeAll(async () => {
  db = await connectTestDatabase();
  dir = tempDir('gw-pgo-');
  sql = db.sql;
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((g) => g.stop()));
  await db?.drop();
});

async function accountWithKey(configFile: string, g: SpawnedGateway, email: string, credits: number): Promise<{ key: string; accountId: string }> {
  const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', g.dataDir, ...args]);
  const made = await cli(['accounts', 'create', '--email', email, '--credits', String(credits), '--tier', 'enterprise']);
  expect(made.exitCode, String(made.stderr)).toBe(0);
  const created = await cli(['keys', 'create', '--account', email, '--json']);
  expect(created.exitCode, String(created.stderr)).toBe(0);
  const { id, key } = JSON.parse(String(created.stdout)) as { id: string; key: string };
  const { rows } = await sql.query<{ account_id: string }>('select account_id from gw_api_keys where id = $1', [id]);
  return { key, accountId: rows[0].account_id };
}

async function chat(g: SpawnedGateway, key: string, i: number): Promise<{ status: number; requestId: string | null; code?: string }> {
  const res = await fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: `request ${i}: a prompt long enough to fill four output tokens` }], max_tokens: PER_REQUEST }),
  });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, requestId: res.headers.get('x-request-id'), code: body.error?.code };
}

async function ledgerOf(accountId: string): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ request_id: string; charged_credits: string }>('select request_id, charged_credits from gw_ledger where account_id = $1', [accountId]);
  return new Map(rows.map((r) => [r.request_id, Number(r.charged_credits)]));
}

async function accountRow(accountId: string): Promise<{ credits: number; reserved: number }> {
  const { rows } = await sql.query<{ credits: string; reserved: string }>('select credits, reserved from gw_accounts where id = $1', [accountId]);
  return { credits: Number(rows[0].credits), reserved: Number(rows[0].reserved) };
}

/** Runs `count` requests, `concurrency` at a time, alternating over the instances. */
async function load(instances: SpawnedGateway[], key: string, count: number, concurrency: number) {
  const outcomes: Array<{ status: number; requestId: string | null; code?: string }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        outcomes.push(await chat(instances[i % instances.length], key, i));
      }
    }),
  );
  return outcomes;
}

describe('settlement outbox and leased slices on PostgreSQL', () => {
  it('a view right after a request shows it; kill -9 right after the replies, restart on the same data dir: every answered charge is in the ledger exactly once', async () => {
    // Settlements wait up to a second in the outbox, so the kill finds them there.
    const configFile = config({ flushMs: 1000 });
    const a = await start(configFile, 'a');
    const { key, accountId } = await accountWithKey(configFile, a, 'outbox@example.test', 10_000);

    const first = await chat(a, key, 0);
    expect(first.status).toBe(200);
    // The instance's own views show its finished request at once (they send the outbox first).
    const res = await fetch(`${a.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
    const { data } = (await res.json()) as { data: { credits: { balance: number; reserved: number; total_used: number } } };
    expect(data.credits).toMatchObject({ balance: 10_000 - PER_REQUEST, total_used: PER_REQUEST, reserved: 0 });
    const activity = (await (await fetch(`${a.url}/v1/activity`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: Array<{ requests: number }> };
    expect(activity.data.reduce((n, r) => n + r.requests, 0)).toBe(1);

    const outcomes = await load([a], key, 60, 6);
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(60);
    // Once those are in the database the outbox is idle, so the next settlement opens a new
    // one-second window: five more requests answered inside it, then kill -9 at once. (Killing
    // right after the 60 found them all flushed on a loaded machine.)
    await expect.poll(async () => (await ledgerOf(accountId)).size, { timeout: 10_000, interval: 50 }).toBe(61);
    const last = await load([a], key, 5, 5);
    expect(last.filter((o) => o.status === 200)).toHaveLength(5);
    await a.kill();
    // Answered, but (within the flush window) not in the database yet.
    const before = await ledgerOf(accountId);
    expect(before.size).toBeLessThan(66);
    const lines = fs.readFileSync(path.join(a.dataDir, 'settlements.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(66 - before.size);

    // The same data dir again: the lines after the checkpoint are sent at start.
    const again = await start(configFile, 'a');
    await expect.poll(async () => (await ledgerOf(accountId)).size, { timeout: 10_000, interval: 50 }).toBe(66);
    const ledger = await ledgerOf(accountId);
    expect(new Set(ledger.keys())).toEqual(new Set([first.requestId, ...outcomes.map((o) => o.requestId), ...last.map((o) => o.requestId)]));
    const charged = [...ledger.values()].reduce((n, c) => n + c, 0);
    expect(charged).toBeCloseTo(66 * PER_REQUEST, 6);
    expect((await accountRow(accountId)).credits).toBeCloseTo(10_000 - charged, 6);
    // Nothing is charged twice when the restarted instance goes on.
    expect((await chat(again, key, 99)).status).toBe(200);
    await expect.poll(async () => (await ledgerOf(accountId)).size, { timeout: 10_000, interval: 50 }).toBe(67);
    expect((await accountRow(accountId)).credits).toBeCloseTo(10_000 - 67 * PER_REQUEST, 6);
    // The killed run's slice went back once its lines were in (not after the 30 s sweep), the new one once idle.
    await expect.poll(async () => (await accountRow(accountId)).reserved, { timeout: 5_000, interval: 50 }).toBe(0);
  }, 60_000);

  it('two instances draining one account to zero from leased slices never overspend; the slices go back when idle', async () => {
    const configFile = config({ leaseIdleMs: 300 });
    const [b, c] = await Promise.all([start(configFile, 'b'), start(configFile, 'c')]);
    // 500 requests' worth: slices are leased (over 64 requests available), then request by request near the end.
    const { key, accountId } = await accountWithKey(configFile, b, 'drain@example.test', 500 * PER_REQUEST);
    const outcomes = await load([b, c], key, 700, 24);
    const ok = outcomes.filter((o) => o.status === 200);
    expect(new Set(outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code}`))).toEqual(new Set(['402 insufficient_balance']));
    expect(ok.length).toBeLessThanOrEqual(500);
    // Credit left idle in a slice while the other instance refused would show as fewer.
    expect(ok.length).toBeGreaterThanOrEqual(490);
    await expect.poll(async () => (await accountRow(accountId)).reserved, { timeout: 5_000, interval: 50 }).toBe(0);
    await expect.poll(async () => (await ledgerOf(accountId)).size, { timeout: 5_000, interval: 50 }).toBe(ok.length);
    const ledger = await ledgerOf(accountId);
    const charged = [...ledger.values()].reduce((n, x) => n + x, 0);
    const row = await accountRow(accountId);
    expect(row.credits).toBeGreaterThanOrEqual(0);
    expect(500 * PER_REQUEST - row.credits).toBeCloseTo(charged, 6);
    expect(charged).toBeCloseTo(ok.length * PER_REQUEST, 6);
    expect(new Set(ledger.keys())).toEqual(new Set(ok.map((o) => o.requestId)));
    const { rows } = await sql.query("select 1 from gw_credit_holds where account_id = $1 and request_id like 'lease:%'", [accountId]);
    expect(rows).toHaveLength(0);
  }, 60_000);

  it('an instance refused an admission asks the others for their idle slices: no credit sits idle in a slice while another instance refuses', async () => {
    // Slices would stay a minute unused: only the recall gives them back in time.
    const configFile = config({ leaseIdleMs: 60_000 });
    const [e, f] = await Promise.all([start(configFile, 'e'), start(configFile, 'f')]);
    const { key, accountId } = await accountWithKey(configFile, e, 'recall@example.test', 250 * PER_REQUEST);
    // E leases a quarter of the account (62 requests' worth) for one request, then sits idle.
    expect((await chat(e, key, 0)).status).toBe(200);
    const { rows } = await sql.query<{ credits: string }>("select credits from gw_credit_holds where account_id = $1 and request_id like 'lease:%'", [accountId]);
    expect(Number(rows[0].credits)).toBeGreaterThan(40 * PER_REQUEST);
    // F drains the account: near the end it is refused while E's slice holds credit, asks E for it, and gets it.
    const outcomes = await load([f], key, 300, 8);
    const ok = outcomes.filter((o) => o.status === 200);
    expect(new Set(outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code}`))).toEqual(new Set(['402 insufficient_balance']));
    expect(ok.length + 1).toBeLessThanOrEqual(250);
    expect(ok.length + 1).toBeGreaterThanOrEqual(248);
    await expect.poll(async () => (await sql.query("select 1 from gw_credit_holds where account_id = $1 and request_id like 'lease:%'", [accountId])).rows.length, { timeout: 5_000, interval: 50 }).toBe(0);
    await expect.poll(async () => (await ledgerOf(accountId)).size, { timeout: 5_000, interval: 50 }).toBe(ok.length + 1);
    const row = await accountRow(accountId);
    expect(row).toEqual({ credits: (250 - ok.length - 1) * PER_REQUEST, reserved: 0 });
  }, 60_000);

  it('a slice is leased for an account with plenty and goes back after store.leaseIdleMs unused', async () => {
    const configFile = config({ leaseIdleMs: 300 });
    const d = await start(configFile, 'd');
    const { key, accountId } = await accountWithKey(configFile, d, 'idle@example.test', 100_000);
    expect((await chat(d, key, 0)).status).toBe(200);
    const { rows } = await sql.query<{ credits: string }>("select credits from gw_credit_holds where account_id = $1 and request_id like 'lease:%'", [accountId]);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].credits)).toBeGreaterThan(PER_REQUEST);
    await expect.poll(async () => (await sql.query('select 1 from gw_credit_holds where account_id = $1', [accountId])).rows.length, { timeout: 5_000, interval: 50 }).toBe(0);
    expect(await accountRow(accountId)).toEqual({ credits: 100_000 - PER_REQUEST, reserved: 0 });
  }, 60_000);
});
