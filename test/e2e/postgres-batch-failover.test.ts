import { randomBytes } from 'node:crypto';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/file/usage-ledger.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * Two gateway instances on one PostgreSQL (and one Redis): a batch started on A, A killed with
 * `kill -9` in the middle of it, B takes the batch over once A's lease lapses and completes it.
 * Every custom_id ends up exactly once across the output and error files, request_counts add
 * up, and every line is billed once.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LINES = 60;
const LEASE_MS = 2_000;

let db: TestDatabaseWithClient;
let sql: pg.Client;
let dir: string;
let configFile: string;
let a: SpawnedGateway | undefined;
let b: SpawnedGateway | undefined;

const balanceOn = async (g: SpawnedGateway, key: string) => {
  const res = await fetch(`${g.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { data: { credits: { balance: number } } }).data.credits.balance;
};

beforeAll(async () => {
  db = await connectTestDatabase();
  sql = db.sql;
  dir = tempDir('gw-failover-');
  configFile = writeConfig(dir, {
    store: { postgres: db.url },
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    // Lines slow enough that the batch is still running when A is killed.
    providers: { mock: { plugin: 'mock', latencyMs: 250, models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } },
    batches: { concurrency: 2, leaseMs: LEASE_MS },
  });
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.kill(), b?.stop()]);
  await db?.drop();
});

describe('a batch survives the kill -9 of the instance running it', () => {
  it('B resumes it after the lease lapses and completes it: every custom_id once, counts true, every line billed once', async () => {
    a = await spawnGateway({ configFile, dataDir: path.join(dir, 'a') });
    const cli = async (args: string[]) => {
      const result = await runCli(['--config', configFile, '--data-dir', a!.dataDir, ...args]);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      return String(result.stdout);
    };
    await cli(['accounts', 'create', '--email', 'batch@example.com', '--tier', 'enterprise', '--credits', '1000000']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'batch@example.com', '--json'])) as { key: string };
    const onA = new OpenAI({ baseURL: `${a.url}/v1`, apiKey: key, maxRetries: 0 });
    const startBalance = await balanceOn(a, key);

    const input = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({ custom_id: `req-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', max_tokens: 8, messages: [{ role: 'user', content: `line ${i}` }] } }),
    ).join('\n');
    const file = await onA.files.create({ file: await toFile(Buffer.from(input + '\n'), 'failover.jsonl'), purpose: 'batch' });
    const batch = await onA.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

    // A holds the lease and has finished some lines; B starts only now, so A surely started the batch.
    const ownerA = await until(
      'A to claim the batch and finish lines',
      async () => {
        const { rows } = await sql.query<{ owner: string | null; done: number }>(
          'select lease_owner as owner, (select count(*)::int from gw_batch_lines where batch_id = $1) as done from gw_batches where id = $1',
          [batch.id],
        );
        return rows[0]?.owner && rows[0].done >= 4 ? rows[0].owner : undefined;
      },
      20_000,
    );
    b = await spawnGateway({ configFile, dataDir: path.join(dir, 'b') });
    const doneAtKill = await until(
      'more lines on A',
      async () => {
        const { rows } = await sql.query<{ done: number }>('select count(*)::int as done from gw_batch_lines where batch_id = $1', [batch.id]);
        return rows[0].done >= 10 ? rows[0].done : undefined;
      },
      20_000,
    );
    expect(doneAtKill).toBeLessThan(LINES - 10); // killed in the middle, not at the end
    await a.kill();
    const killedAt = Date.now();

    const onB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: key, maxRetries: 0 });
    const finished = await until(
      'B to complete the batch',
      async () => {
        const current = await onB.batches.retrieve(batch.id);
        return ['completed', 'failed', 'expired', 'cancelled'].includes(current.status) ? current : undefined;
      },
      60_000,
    );
    expect(finished.status).toBe('completed');
    // Not before A's lease could lapse, and B (not A) finished it.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 500);
    const { rows: leaseRows } = await sql.query<{ owner: string | null }>('select lease_owner as owner from gw_batches where id = $1', [batch.id]);
    expect(leaseRows[0].owner).not.toBe(ownerA);

    // Every custom_id exactly once across the output and error files; the counts say the same.
    const linesOf = async (id: string | null | undefined) => (id ? (await (await onB.files.content(id)).text()).split('\n').filter(Boolean) : []);
    const output = (await linesOf(finished.output_file_id)).map((l) => JSON.parse(l) as { custom_id: string; response: { request_id: string } });
    const errors = (await linesOf(finished.error_file_id)).map((l) => JSON.parse(l) as { custom_id: string });
    const ids = [...output, ...errors].map((l) => l.custom_id).sort();
    expect(ids).toEqual(Array.from({ length: LINES }, (_, i) => `req-${i}`).sort());
    expect(finished.request_counts).toEqual({ total: LINES, completed: output.length, failed: errors.length });
    expect(errors, JSON.stringify(errors)).toEqual([]);

    // Billing: each line's request id is in the ledger once, and the balance fell by what the ledger charged.
    const { rows: pgLedger } = await sql
      .query<{ request_id: string; charged: number }>(`select request_id, charged_credits::float8 as charged from gw_ledger where request_id like $1`, [`${batch.id}:%`])
      .catch(() => ({ rows: [] as Array<{ request_id: string; charged: number }> }));
    const jsonl = [...readLedger(path.join(dir, 'a', 'usage.jsonl')), ...readLedger(path.join(dir, 'b', 'usage.jsonl'))]
      .filter((e) => e.request_id.startsWith(`${batch.id}:`))
      .map((e) => ({ request_id: e.request_id, charged: e.charged_credits }));
    const billed = pgLedger.length > 0 ? pgLedger : jsonl;
    const perRequest = new Map<string, number>();
    for (const row of billed) perRequest.set(row.request_id, (perRequest.get(row.request_id) ?? 0) + 1);
    expect([...perRequest.values()].filter((n) => n > 1)).toEqual([]);
    expect(perRequest.size).toBe(LINES);
    const charged = billed.reduce((sum, row) => sum + row.charged, 0);
    expect(charged).toBeGreaterThan(0);
    const endBalance = await balanceOn(b, key);
    expect(Math.round((startBalance - endBalance) * 1e6) / 1e6).toBeCloseTo(charged, 5);
  }, 120_000);
});
