import { randomBytes } from 'node:crypto';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/file/usage-ledger.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { chatCompletion } from '../helpers/routing-wire.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * Two gateway instances on one PostgreSQL (and one Redis): a batch started on A, A killed with
 * `kill -9` in the middle of it, B takes the batch over once A's lease lapses and completes it.
 * Every custom_id ends up exactly once across the output and error files, request_counts add
 * up, and every line is billed once.
 *
 * The upstream answers the first ANSWERED lines and holds every later one until A is dead, so
 * A has finished exactly ANSWERED lines when it is killed however slowly B starts (on a loaded
 * machine a time-based split let A finish nearly the whole batch first).
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LINES = 60;
const LEASE_MS = 2_000;
const ANSWERED = 6;
/** A start may take long on a loaded machine (B starts while A holds its lines). */
const START_MS = 60_000;

let db: TestDatabaseWithClient;
let sql: pg.Client;
let upstream: FakeUpstream;
/** While true, chat requests after the first ANSWERED get no answer (A's lines in flight at the kill). */
let holding = true;
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
  let chats = 0;
  upstream = await startFakeUpstream((request) => {
    if (request.path !== '/v1/chat/completions') return { status: 404, json: { error: { message: `unexpected ${request.path}` } } };
    chats += 1;
    return holding && chats > ANSWERED ? { fault: 'hang' } : { json: chatCompletion('echo') };
  });
  dir = tempDir('gw-failover-');
  configFile = writeConfig(dir, {
    store: { postgres: db.url },
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'sk-up', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } },
    batches: { concurrency: 2, leaseMs: LEASE_MS },
  });
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.kill(), b?.stop()]);
  await upstream?.close();
  await db?.drop();
});

describe('a batch survives the kill -9 of the instance running it', () => {
  it('B resumes it after the lease lapses and completes it: every custom_id once, counts true, every line billed once', async () => {
    a = await spawnGateway({ configFile, dataDir: path.join(dir, 'a'), timeoutMs: START_MS });
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
      JSON.stringify({ custom_id: `req-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'up/echo', max_tokens: 8, messages: [{ role: 'user', content: `line ${i}` }] } }),
    ).join('\n');
    const file = await onA.files.create({ file: await toFile(Buffer.from(input + '\n'), 'failover.jsonl'), purpose: 'batch' });
    const batch = await onA.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

    // A holds the lease, has finished the lines the upstream answered and waits on the next ones
    // (one per slot); B starts only now, so A surely started the batch.
    const ownerA = await until(
      'A to claim the batch, finish the answered lines and wait on the held ones',
      async () => {
        const { rows } = await sql.query<{ owner: string | null; done: number }>(
          'select lease_owner as owner, (select count(*)::int from gw_batch_lines where batch_id = $1) as done from gw_batches where id = $1',
          [batch.id],
        );
        const held = upstream.requests.filter((r) => r.path === '/v1/chat/completions').length - ANSWERED;
        return rows[0]?.owner && rows[0].done >= ANSWERED && held >= 2 ? rows[0].owner : undefined;
      },
      20_000,
    );
    b = await spawnGateway({ configFile, dataDir: path.join(dir, 'b'), timeoutMs: START_MS });
    // Killed in the middle: exactly the answered lines are done (A still holds the lease, B waits).
    const { rows: doneRows } = await sql.query<{ done: number }>('select count(*)::int as done from gw_batch_lines where batch_id = $1', [batch.id]);
    expect(doneRows[0].done).toBe(ANSWERED);
    await a.kill();
    // A's last renewal is final now: its lease lapses at the time it wrote (renewed every leaseMs / 3, so up to
    // a third of LEASE_MS before the kill), and B may take the batch only from then on.
    const { rows: leaseAtKill } = await sql.query<{ owner: string | null; expires: string | null }>('select lease_owner as owner, lease_expires_at::text as expires from gw_batches where id = $1', [batch.id]);
    expect(leaseAtKill[0].owner).toBe(ownerA);
    const lapsesAt = Number(leaseAtKill[0].expires);
    holding = false;

    const onB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: key, maxRetries: 0 });
    // When the lease was first seen out of A's hands (polled with the batch): never before it lapsed.
    let takenSeenAt: number | undefined;
    const finished = await until(
      'B to complete the batch',
      async () => {
        const { rows: lease } = await sql.query<{ owner: string | null }>('select lease_owner as owner from gw_batches where id = $1', [batch.id]);
        if (takenSeenAt === undefined && lease[0].owner !== ownerA) takenSeenAt = Date.now();
        const current = await onB.batches.retrieve(batch.id);
        return ['completed', 'failed', 'expired', 'cancelled'].includes(current.status) ? current : undefined;
      },
      60_000,
    );
    expect(finished.status).toBe('completed');
    // Not before A's lease lapsed, and B (not A) finished it.
    expect(takenSeenAt).toBeGreaterThanOrEqual(lapsesAt);
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
  }, 240_000);
});
