import { randomBytes } from 'node:crypto';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/file/usage-ledger.ts';
import { startWebhookReceiver } from '../helpers/fake-videos-upstream.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const JOBS = 3;
const running: SpawnedGateway[] = [];
let db: TestDatabaseWithClient | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;

afterAll(async () => {
  await Promise.all(running.map((g) => g.kill()));
  await receiver?.close();
  await db?.drop();
});

async function accountOn(g: SpawnedGateway, configFile: string): Promise<string> {
  const cli = async (...args: string[]) => {
    const r = await runCli(['--config', configFile, '--data-dir', g.dataDir, ...args]);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    return String(r.stdout);
  };
  await cli('accounts', 'create', '--email', 'jobs@example.test', '--credits', '10000');
  return (JSON.parse(await cli('keys', 'create', '--account', 'jobs@example.test', '--json')) as { key: string }).key;
}

const balanceOn = async (g: SpawnedGateway, key: string) =>
  ((await (await fetch(`${g.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { credits: { balance: number; reserved: number } } }).data.credits;

/** Submits JOBS videos (4 s asked, 1 s made: 100 credits each) with a webhook, and waits until each has been polled. */
async function submitAndWaitRunning(client: OpenAI, hook: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < JOBS; i++) ids.push((await client.videos.create({ model: 'mock/video', prompt: `durable ${i}`, seconds: '4', callback_url: hook } as OpenAI.Videos.VideoCreateParams)).id);
  await until('every job to be polled', async () => {
    const views = await Promise.all(ids.map((id) => client.videos.retrieve(id)));
    return views.every((v) => v.status === 'in_progress') ? true : undefined;
  });
  return ids;
}

async function waitCompleted(client: OpenAI, ids: string[]): Promise<OpenAI.Videos.Video[]> {
  return until(
    'every job to complete',
    async () => {
      const views = await Promise.all(ids.map((id) => client.videos.retrieve(id)));
      // Billed right after it completes: `usage` shows once the charge is written.
      return views.every((v) => v.status === 'completed' && 'usage' in v) ? views : undefined;
    },
    60_000,
  );
}

/** Kills `first`, starts a gateway on its data dir, waits for the jobs to complete there and sees each charged once (100 credits), holds gone. */
async function restartAndSeeEachCharged(first: SpawnedGateway, configFile: string, dataDir: string, key: string, ids: string[]): Promise<SpawnedGateway> {
  await first.kill();
  const second = await spawnGateway({ configFile, dataDir });
  running.push(second);
  const done = await waitCompleted(new OpenAI({ baseURL: `${second.url}/v1`, apiKey: key, maxRetries: 0 }), ids);
  expect(done.map((v) => (v as unknown as { usage: { cost: number } }).usage.cost)).toEqual(ids.map(() => 100));
  await until('the holds to go', async () => ((await balanceOn(second, key)).reserved === 0 ? true : undefined));
  expect((await balanceOn(second, key)).balance).toBe(10000 - 100 * ids.length);
  return second;
}

const recordIdOf = (videoId: string) => videoId.slice(6).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

describe('media jobs survive kill -9: every job ends once, billed once, one webhook each', () => {
  it('file store: a restart on the same data dir resumes polling', async () => {
    receiver = await startWebhookReceiver();
    const dir = tempDir('gw-jobs-kill-');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', jobDelayMs: 5000 } }, media: { jobs: { webhookPrivateAddresses: true, pollIntervalMs: 100 } } });
    const dataDir = path.join(dir, 'data');
    const first = await spawnGateway({ configFile, dataDir });
    running.push(first);
    const key = await accountOn(first, configFile);
    const ids = await submitAndWaitRunning(new OpenAI({ baseURL: `${first.url}/v1`, apiKey: key, maxRetries: 0 }), receiver.url);
    await restartAndSeeEachCharged(first, configFile, dataDir, key, ids);
    const lines = readLedger(path.join(dataDir, 'usage.jsonl')).filter((e) => e.request_id.startsWith('mediajob_'));
    expect(lines.map((l) => l.request_id).sort()).toEqual(ids.map((id) => `mediajob_${recordIdOf(id)}`).sort());
    await until('one webhook per job', async () => (receiver!.deliveries.length >= JOBS ? true : undefined));
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(JOBS);
  }, 120_000);

  it("a resumed job is charged even when its account's POST /v1/videos window is full: the gateway's own hold and charge are not client requests", async () => {
    const dir = tempDir('gw-jobs-rpm-');
    // The window lives in Redis, so it is as full after the restart as the three submits left it.
    const configFile = writeConfig(dir, {
      limits: { endpoints: { 'POST /v1/videos': JOBS }, store: { redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
      providers: { mock: { plugin: 'mock', jobDelayMs: 5000 } },
      media: { jobs: { webhookPrivateAddresses: true, pollIntervalMs: 100 } },
    });
    const dataDir = path.join(dir, 'data');
    const first = await spawnGateway({ configFile, dataDir });
    running.push(first);
    const key = await accountOn(first, configFile);
    const client = new OpenAI({ baseURL: `${first.url}/v1`, apiKey: key, maxRetries: 0 });
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) ids.push((await client.videos.create({ model: 'mock/video', prompt: `window ${i}`, seconds: '4' } as OpenAI.Videos.VideoCreateParams)).id);
    const over = await client.videos.create({ model: 'mock/video', prompt: 'one too many', seconds: '4' } as OpenAI.Videos.VideoCreateParams).catch((e: unknown) => e);
    expect((over as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    await restartAndSeeEachCharged(first, configFile, dataDir, key, ids);
  }, 120_000);

  it("a resumed job is charged even when its key's model scope was narrowed while the gateway was down: the work was admitted and done", async () => {
    const dir = tempDir('gw-jobs-scope-');
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', jobDelayMs: 5000 } }, media: { jobs: { webhookPrivateAddresses: true, pollIntervalMs: 100 } } });
    const dataDir = path.join(dir, 'data');
    const first = await spawnGateway({ configFile, dataDir });
    running.push(first);
    const cli = async (...args: string[]) => {
      const r = await runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      return String(r.stdout);
    };
    const submitter = await accountOn(first, configFile);
    const ids = await submitAndWaitRunning(new OpenAI({ baseURL: `${first.url}/v1`, apiKey: submitter, maxRetries: 0 }), 'http://127.0.0.1:9/hook');
    const watcher = (JSON.parse(await cli('keys', 'create', '--account', 'jobs@example.test', '--json')) as { key: string }).key;
    await first.kill();
    // The account's first key is the one that submitted the jobs (the watcher came after).
    const keys = JSON.parse(await cli('keys', 'ls', '--json')) as Array<{ id: string; account: string }>;
    const narrowed = keys.filter((k) => k.account === 'jobs@example.test')[0];
    await cli('keys', 'set', narrowed.id, '--models', 'other/*');
    // Admitting the jobs again for their charge is refused now (403: the key's scope): before, they ended charged nothing.
    await restartAndSeeEachCharged(first, configFile, dataDir, watcher, ids);
  }, 120_000);

  it('PostgreSQL: a second instance finishes the jobs of a killed one through the leases', async () => {
    db = await connectTestDatabase();
    const hooks = await startWebhookReceiver();
    const dir = tempDir('gw-jobs-pg-');
    const configFile = writeConfig(dir, {
      store: { postgres: db.url, flushMs: 1000 },
      limits: { store: { redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
      providers: { mock: { plugin: 'mock', jobDelayMs: 6000 } },
      media: { jobs: { webhookPrivateAddresses: true, pollIntervalMs: 100, leaseMs: 2000, webhookSecret: 'a shared secret of both instances' } },
    });
    const a = await spawnGateway({ configFile, dataDir: path.join(dir, 'a') });
    running.push(a);
    const key = await accountOn(a, configFile);
    const ids = await submitAndWaitRunning(new OpenAI({ baseURL: `${a.url}/v1`, apiKey: key, maxRetries: 0 }), hooks.url);
    const owners = async () => {
      const { rows } = await db!.sql.query<{ owner: string | null }>(`select (record::jsonb #>> '{job,lease,owner}') as owner from gw_media where id = any($1)`, [ids.map(recordIdOf)]);
      return rows.map((r) => r.owner);
    };
    const ownerA = (await owners())[0];
    expect(new Set(await owners())).toEqual(new Set([ownerA]));
    // A dies before B starts: a job A finished first would be charged in A's own outbox (its data
    // dir, sent when A starts again), never in gw_ledger within this test.
    await a.kill();
    const b = await spawnGateway({ configFile, dataDir: path.join(dir, 'b') });
    running.push(b);
    const onB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: key, maxRetries: 0 });
    const done = await waitCompleted(onB, ids);
    expect(done.every((v) => (v as unknown as { usage: { cost: number } }).usage.cost === 100)).toBe(true);
    // `usage` shows once the charge is in gw_ledger itself, not only in B's outbox (flushMs 1000
    // would keep it there up to a second): an instance taking over B's jobs reads the charge there.
    const { rows } = await db.sql.query<{ request_id: string; n: number }>(`select request_id, count(*)::int as n from gw_ledger where request_id like 'mediajob_%' group by request_id`);
    expect(rows.map((r) => r.request_id).sort()).toEqual(ids.map((id) => `mediajob_${recordIdOf(id)}`).sort());
    expect(rows.every((r) => r.n === 1)).toBe(true);
    await until('one webhook per job', async () => (hooks.deliveries.length >= JOBS ? true : undefined));
    expect(new Set(hooks.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(JOBS);
    // Content of a job B finished is served by B (fetched with the provider's key, cached in B's data dir).
    const bytes = Buffer.from(await (await onB.videos.downloadContent(ids[0])).arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    await hooks.close();
  }, 120_000);
});
