import { randomBytes } from 'node:crypto';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFreezableProxy, type FreezableProxy } from '../limits/freezable-proxy.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { chatCompletion } from '../helpers/routing-wire.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * Two gateway instances on one PostgreSQL. A (through a proxy the test cuts) starts a batch line of
 * a key with a spend limit (admitted request by request in the database); its admission call is cut
 * while gw_reserve waits on the account's row, so A lists the line's request id to give its hold
 * back at each heartbeat for two minutes (398166e), and cannot record the line either. A's lease
 * lapses, B runs the line again under the same request id and holds it (gw_reserve takes A's hold
 * over) while the upstream works. Before, A's first heartbeat once the database was back released
 * B's hold: the line went on with nothing held against the key's limit or the balance.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let db: TestDatabaseWithClient;
let sql: pg.Client;
let proxy: FreezableProxy;
let upstream: FakeUpstream;
let answer!: () => void;
const answered = new Promise<void>((resolve) => (answer = resolve));
let dir: string;
let configA: string;
let configB: string;
let a: SpawnedGateway | undefined;
let b: SpawnedGateway | undefined;

beforeAll(async () => {
  db = await connectTestDatabase();
  sql = db.sql;
  const url = new URL(db.url);
  proxy = await startFreezableProxy(Number(url.port || 5432), url.hostname);
  const viaProxy = new URL(db.url);
  viaProxy.port = String(proxy.port);
  // Every chat call waits until the test lets it answer.
  upstream = await startFakeUpstream(async () => {
    await answered;
    return { json: chatCompletion('echo') };
  });
  dir = tempDir('gw-takeover-');
  const common = {
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'sk-up', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } },
    batches: { leaseMs: 1_000 },
  };
  configA = writeConfig(dir, { ...common, store: { postgres: viaProxy.toString(), queryTimeoutMs: 5_000 } }, 'a.config.json');
  configB = writeConfig(dir, { ...common, store: { postgres: db.url } }, 'b.config.json');
}, 30_000);

afterAll(async () => {
  answer();
  await Promise.all([a?.stop(), b?.stop()]);
  await proxy?.close();
  await upstream?.close();
  await db?.drop();
});

describe('a batch line run again on another instance', () => {
  it("keeps its hold there when the first instance gives back its failed admission's hold", async () => {
    a = await spawnGateway({ configFile: configA, dataDir: path.join(dir, 'a') });
    const cli = async (args: string[]) => {
      const result = await runCli(['--config', configB, '--data-dir', path.join(dir, 'cli'), ...args]);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      return String(result.stdout);
    };
    await cli(['accounts', 'create', '--email', 'takeover@example.test', '--tier', 'enterprise', '--credits', '100000']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'takeover@example.test', '--limit', '50000', '--json'])) as { key: string };
    const onA = new OpenAI({ baseURL: `${a.url}/v1`, apiKey: key, maxRetries: 0 });
    const line = JSON.stringify({ custom_id: 'only', method: 'POST', url: '/v1/chat/completions', body: { model: 'up/echo', max_tokens: 8, messages: [{ role: 'user', content: 'a line' }] } });
    const file = await onA.files.create({ file: await toFile(Buffer.from(line + '\n'), 'takeover.jsonl'), purpose: 'batch' });

    // The account's row held from another connection: A's admission of the line waits for it.
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query("select 1 from gw_accounts where email = 'takeover@example.test' for update");
      const batch = await onA.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      await until('A admitting the line, waiting on the account row', async () => {
        const { rows } = await sql.query("select 1 from pg_stat_activity where datname = current_database() and query like '%gw_reserve%' and wait_event_type = 'Lock' and pid <> pg_backend_pid()");
        return rows.length > 0 || undefined;
      });
      // Cut while it waits: the call fails after it was sent (A lists its request id), and the line cannot be recorded.
      proxy.cut();
      await until('A to give up on the line', async () => (a!.stdout() + a!.stderr()).includes('batch failed to run') || undefined, 20_000);
      await locker.query('rollback');

      b = await spawnGateway({ configFile: configB, dataDir: path.join(dir, 'b') });
      const requestId = `${batch.id}:1`;
      const heldFor = async () => (await sql.query<{ instance: string; credits: number }>('select instance, credits::float8 as credits from gw_credit_holds where request_id = $1', [requestId])).rows;
      // B runs the line again under the same request id and holds it while the upstream works.
      await until('B holding the line while its upstream works', async () => ((await heldFor()).length === 1 && upstream.requests.length === 1) || undefined, 30_000);
      const [bHold] = await heldFor();
      expect(bHold.credits).toBeGreaterThan(0);

      // A reaches the database again and beats: its give-back runs after each beat.
      proxy.restore();
      // A's beats: the instance that is not B's whose seen_at moves on (the CLI leaves none that beat).
      const seen = async () => new Map((await sql.query<{ id: string; seen: string }>('select id, seen_at::text as seen from gw_instances where id <> $1', [bHold.instance])).rows.map((r) => [r.id, Number(r.seen)]));
      const before = await seen();
      const beatOfA = async (after: Map<string, number>) => {
        const now = await seen();
        return [...now].some(([id, at]) => at > (after.get(id) ?? Infinity)) ? now : undefined;
      };
      const first = await until('a beat of A after the restore', () => beatOfA(before), 20_000);
      await until('another beat of A (its give-back ran after the first)', () => beatOfA(first), 20_000);
      // Before, A released it (gw_release by request id) at that beat.
      expect(await heldFor()).toEqual([bHold]);

      answer();
      const onB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: key, maxRetries: 0 });
      const done = await until('B to complete the batch', async () => {
        const current = await onB.batches.retrieve(batch.id);
        return ['completed', 'failed', 'expired', 'cancelled'].includes(current.status) ? current : undefined;
      }, 30_000);
      expect(done.request_counts).toEqual({ total: 1, completed: 1, failed: 0 });
      await expect.poll(heldFor, { timeout: 10_000, interval: 200 }).toEqual([]);
    } finally {
      await locker.end();
    }
  }, 120_000);
});
