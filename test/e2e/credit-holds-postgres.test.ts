/**
 * The hold rule across two instances on one PostgreSQL (issue 27 §3): 300 concurrent priced
 * requests with a 5-character prompt on credit for 100, spread over both instances, leave the
 * balance at or above zero and every answer charged in full; the balance drop is the ledger sum.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatOnce, FIVE_CHARS, PER_TOKEN } from '../helpers/credit-holds.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let db: TestDatabaseWithClient;
let a: SpawnedGateway;
let b: SpawnedGateway;
let configFile: string;

beforeAll(async () => {
  db = await connectTestDatabase();
  const dir = tempDir('gw-pgholds-');
  configFile = writeConfig(dir, {
    store: { postgres: db.url },
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PER_TOKEN }] } },
  });
  [a, b] = await Promise.all([spawnGateway({ configFile, dataDir: path.join(dir, 'a') }), spawnGateway({ configFile, dataDir: path.join(dir, 'b') })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
});

describe('credit holds on two PostgreSQL instances (real CLI)', () => {
  it('300 concurrent requests with a 5-character prompt on credit for 100: balance >= 0, no answer uncharged, drop = ledger sum', async () => {
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', a.dataDir, ...args]);
    // One request bills 5 input tokens and 2 output tokens: 7 credits.
    const credit = 100 * 7;
    expect((await cli(['accounts', 'create', '--email', 'pgholds@example.test', '--credits', String(credit), '--tier', 'enterprise'])).exitCode).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'pgholds@example.test', '--json']);
    const { key, id } = JSON.parse(String(created.stdout)) as { key: string; id: string };
    const { rows: owner } = await db.sql.query<{ account_id: string }>('select account_id from gw_api_keys where id = $1', [id]);
    const accountId = owner[0].account_id;

    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => chatOnce(i % 2 === 0 ? a.url : b.url, key, { content: FIVE_CHARS, max_tokens: 4 })));
    const ok = answers.filter((x) => x.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length).toBeLessThanOrEqual(100);
    expect(new Set(answers.filter((x) => x.status !== 200).map((x) => `${x.status} ${x.code}`))).toEqual(new Set(['402 insufficient_balance']));

    // Every answer's row reaches the database (each instance's outbox), charged in full.
    const ledger = async () => (await db.sql.query<{ request_id: string; cost_credits: string; charged_credits: string }>('select request_id, cost_credits, charged_credits from gw_ledger where account_id = $1', [accountId])).rows;
    await expect.poll(async () => (await ledger()).length, { timeout: 10_000, interval: 50 }).toBe(ok.length);
    const rows = await ledger();
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(ok.map((x) => x.requestId)));
    for (const row of rows) expect(Number(row.charged_credits)).toBe(Number(row.cost_credits));
    const { rows: account } = await db.sql.query<{ credits: string }>('select credits from gw_accounts where id = $1', [accountId]);
    const balance = Number(account[0].credits);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(credit - balance).toBeCloseTo(rows.reduce((n, r) => n + Number(r.charged_credits), 0), 6);
  }, 120_000);
});
