import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/** kill -9 mid-batch, restart: the batch completes, every custom_id once, each line billed once at the multiplier. */
describe('batch durability and billing (real server, kill -9)', () => {
  let gw: SpawnedGateway | undefined;
  afterAll(async () => {
    await gw?.stop();
  });

  it('resumes after kill -9: every custom_id exactly once across output and error files; credits = multiplier × live cost per line', async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    // 1 credit per output token: the echo reply of the same prompt costs the same every time.
    const configFile = writeConfig(dir, { providers: { slow: { plugin: 'mock', latencyMs: 40, models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] } } });
    const cli = async (args: string[]) => String((await runCli(['--config', configFile, '--data-dir', dataDir, ...args])).stdout);
    await cli(['accounts', 'create', '--email', 'b@example.com', '--tier', 'enterprise', '--credits', '1000000']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'b@example.com', '--json'])) as { key: string };
    gw = await spawnGateway({ configFile, dataDir });
    let client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const body = { model: 'slow/echo', messages: [{ role: 'user' as const, content: 'the same words' }], max_tokens: 16 };
    await client.chat.completions.create(body);
    const N = 120;
    const lines = Array.from({ length: N }, (_, i) => JSON.stringify({ custom_id: `c${i}`, method: 'POST', url: '/v1/chat/completions', body }));
    const input = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (let i = 0; i < 400; i++) {
      const b = await client.batches.retrieve(batch.id);
      if (b.request_counts!.completed >= 20) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await gw.kill();
    // The crash window between a line's ledger line and its progress record: the last finished
    // line keeps its charge but loses its progress. It runs again, and must not be billed again.
    const progress = path.join(dataDir, 'batches', `${batch.id}.jsonl`);
    const saved = fs.readFileSync(progress, 'utf8').trim().split('\n');
    const lost = JSON.parse(saved.at(-1)!) as { customId: string; index: number };
    fs.writeFileSync(progress, saved.slice(0, -1).map((l) => `${l}\n`).join(''));
    expect(readLedger(path.join(dataDir, 'usage.jsonl')).map((l) => l.request_id)).toContain(`${batch.id}:${lost.index + 1}`);
    const restartedAt = Date.now();
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const done = await completedBatch(client, batch.id);
    expect(done?.request_counts).toEqual({ total: N, completed: N, failed: 0 });
    // The restarted instance knows its own lease (data dir instance id): no 30 s wait for it to lapse.
    expect(Date.now() - restartedAt).toBeLessThan(25_000);
    const out = (await (await client.files.content(done!.output_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string });
    expect(out.map((l) => l.custom_id).sort()).toEqual(lines.map((_, i) => `c${i}`).sort());
    expect(done!.error_file_id).toBeNull();
    await gw.stop();
    gw = undefined;
    const ledger = readLedger(path.join(dataDir, 'usage.jsonl'));
    const live = ledger.filter((l) => l.endpoint !== '/v1/batches');
    const batched = ledger.filter((l) => l.endpoint === '/v1/batches');
    expect(live).toHaveLength(1);
    expect(live[0].cost_credits).toBeGreaterThan(0);
    expect(batched).toHaveLength(N);
    // One ledger line per input line, under the line's own request id.
    expect(new Set(batched.map((l) => l.request_id))).toEqual(new Set(lines.map((_, i) => `${batch.id}:${i + 1}`)));
    for (const l of batched) expect(l.charged_credits).toBeCloseTo(live[0].cost_credits * 0.5, 6);
  }, 120_000);

  it('`gateway batches cancel` with no server running finishes the cancel at once (no batch left cancelling)', async () => {
    const run = await runningBatch({ latencyMs: 150, concurrency: 1, n: 200 });
    const { dataDir, configFile, cli, key, batch } = run;
    gw = run.gw;
    let client = run.client;
    await gw.stop();
    gw = undefined;
    const cancelled = JSON.parse(await cli(['batches', 'cancel', batch.id, '--json'])) as OpenAI.Batch;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.cancelled_at).toBeTypeOf('number');
    expect(cancelled.request_counts!.completed).toBeGreaterThanOrEqual(3);
    expect(cancelled.request_counts!.completed).toBeLessThan(200);
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const after = await client.batches.retrieve(batch.id);
    expect(after).toMatchObject({ status: 'cancelled', request_counts: cancelled.request_counts });
    const out = (await (await client.files.content(after.output_file_id!)).text()).trim().split('\n');
    expect(out).toHaveLength(after.request_counts!.completed);
  }, 120_000);
});

/** The input file of a batch that has not finished is what a restarted or other instance reads its lines from. */
describe('deleting the input file of a running batch (real server, restart)', () => {
  let gw: SpawnedGateway | undefined;
  afterAll(async () => {
    await gw?.stop();
  });

  it('is refused (409) while the batch runs, so a restart still runs every line; allowed once the batch ended', async () => {
    const N = 60;
    const run = await runningBatch({ latencyMs: 60, concurrency: 2, n: N });
    const { dataDir, configFile, key, input, batch } = run;
    gw = run.gw;
    let client = run.client;
    const refused = await fetch(`${gw.url}/v1/files/${input.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(batch.id);
    const gemini = await fetch(`${gw.url}/v1beta/files/${input.id}`, { method: 'DELETE', headers: { 'x-goog-api-key': key } });
    expect(gemini.status).toBe(409);
    await gw.stop();
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const done = await completedBatch(client, batch.id);
    expect(done?.request_counts).toEqual({ total: N, completed: N, failed: 0 });
    const out = (await (await client.files.content(done!.output_file_id!)).text()).trim().split('\n');
    expect(out).toHaveLength(N);
    expect(await client.files.delete(input.id)).toMatchObject({ id: input.id, deleted: true });
  }, 120_000);
});

/** A data dir with a funded key, a server on it, and a batch of `n` slow chat lines running there, past its third finished line. */
async function runningBatch(o: { latencyMs: number; concurrency: number; n: number }) {
  const dir = tempDir();
  const dataDir = path.join(dir, 'data');
  const configFile = writeConfig(dir, { providers: { slow: { plugin: 'mock', latencyMs: o.latencyMs } }, batches: { concurrency: o.concurrency } });
  const cli = async (args: string[]) => String((await runCli(['--config', configFile, '--data-dir', dataDir, ...args])).stdout);
  await cli(['accounts', 'create', '--email', 'c@example.com', '--tier', 'enterprise', '--credits', '1000']);
  const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'c@example.com', '--json'])) as { key: string };
  const gw = await spawnGateway({ configFile, dataDir });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  const body = { model: 'slow/echo', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 4 };
  const lines = Array.from({ length: o.n }, (_, i) => JSON.stringify({ custom_id: `c${i}`, method: 'POST', url: '/v1/chat/completions', body }));
  const input = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'), purpose: 'batch' });
  const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  for (let i = 0; i < 400; i++) {
    if ((await client.batches.retrieve(batch.id)).request_counts!.completed >= 3) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return { gw, dataDir, configFile, cli, key, client, input, batch };
}

/** The batch once it is completed (undefined if it is not within a minute). */
async function completedBatch(client: OpenAI, id: string): Promise<OpenAI.Batch | undefined> {
  for (let i = 0; i < 1200; i++) {
    const b = await client.batches.retrieve(id);
    if (b.status === 'completed') return b;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}
