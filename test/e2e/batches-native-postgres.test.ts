import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicBatchApi } from '../helpers/fake-batch-apis.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * A native batch on PostgreSQL with two instances: A submits it to a fake Anthropic Message
 * Batches API and is killed (-9) while the upstream batch runs; B takes the batch over after
 * its lease and goes on polling the same upstream batch (the upstream id and state live in the
 * batch record), then writes the results and bills each line once.
 */

let db: TestDatabaseWithClient;
let sql: pg.Client;
let up: FakeUpstream;
let a: SpawnedGateway | undefined;
let b: SpawnedGateway | undefined;
const api = anthropicBatchApi({ hold: true });

beforeAll(async () => {
  db = await connectTestDatabase();
  sql = db.sql;
  up = await startFakeUpstream(api.handler);
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.kill(), b?.stop()]);
  await up?.close();
  await db?.drop();
});

describe('native batch on PostgreSQL', () => {
  it('A killed mid-poll: B resumes polling the same upstream batch, completes it, bills each line once', async () => {
    const dir = tempDir('gw-native-pg-');
    const configFile = writeConfig(dir, {
      store: { postgres: db.url },
      providers: { an: { plugin: 'anthropic', baseURL: up.url, apiKey: 'sk-upstream-anthropic', batches: 'native', models: [{ id: 'claude-up', pricing: { input: 1000, output: 3000 } }] } },
      batches: { pollIntervalMs: 100, leaseMs: 2_000 },
    });
    a = await spawnGateway({ configFile, dataDir: path.join(dir, 'a') });
    const cli = async (args: string[]) => String((await runCli(['--config', configFile, '--data-dir', a!.dataDir, ...args])).stdout);
    await cli(['accounts', 'create', '--email', 'pg@example.com', '--tier', 'enterprise', '--credits', '1000000']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'pg@example.com', '--json'])) as { key: string };
    const onA = new OpenAI({ baseURL: `${a.url}/v1`, apiKey: key, maxRetries: 0 });
    const lines = Array.from({ length: 4 }, (_, i) => JSON.stringify({ custom_id: `pg-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'an/claude-up', max_tokens: 20, messages: [{ role: 'user', content: `pg ${i}` }] } }));
    const file = await onA.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'), purpose: 'batch' });
    const batch = await onA.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await until('A to poll the upstream batch', async () => (([...api.batches.values()][0]?.polls ?? 0) >= 2 ? true : undefined));
    const { rows } = await sql.query<{ record: string }>('select record from gw_batches where id = $1', [batch.id]);
    const stored = JSON.parse(rows[0].record) as { mode: string; native: { provider: string; upstream: { id: string } } };
    expect(stored.mode).toBe('native');
    expect(stored.native.provider).toBe('an');
    expect(stored.native.upstream.id).toBe([...api.batches.keys()][0]);

    await a.kill();
    a = undefined;
    b = await spawnGateway({ configFile, dataDir: path.join(dir, 'b') });
    const polls = [...api.batches.values()][0].polls;
    await until('B to poll the same upstream batch', async () => ([...api.batches.values()][0].polls > polls ? true : undefined));
    api.release();
    const onB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: key, maxRetries: 0 });
    const done = await until('B to complete the batch', async () => {
      const current = await onB.batches.retrieve(batch.id);
      return current.status === 'completed' ? current : undefined;
    });
    expect(api.batches.size).toBe(1);
    expect(done.request_counts).toEqual({ total: 4, completed: 4, failed: 0 });
    const out = (await (await onB.files.content(done.output_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string });
    expect(out.map((l) => l.custom_id).sort()).toEqual(['pg-0', 'pg-1', 'pg-2', 'pg-3']);
    const billed = await sql.query<{ request_id: string }>("select request_id from gw_ledger where request_id like $1 || ':%' order by request_id", [batch.id]);
    expect(billed.rows.map((r) => r.request_id)).toEqual([1, 2, 3, 4].map((n) => `${batch.id}:${n}`));
  }, 90_000);
});
