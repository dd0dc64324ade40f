import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { openaiBatchApi } from '../helpers/fake-batch-apis.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/**
 * A native batch line converted to the Responses format whose result says `status: "failed"`
 * is charged what it reports it used (times batches.priceMultiplier), as the same answer is
 * live (6aca638); before, it became a failed line and nothing was charged.
 */

const FAILED = {
  id: 'resp_failed',
  object: 'response',
  model: 'gpt-up',
  status: 'failed',
  output: [],
  error: { code: 'server_error', message: 'The model failed.' },
  usage: { input_tokens: 40, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 47 },
};

describe('native batches: a failed Responses result is charged what it reports', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway | undefined;
  let client: OpenAI;
  let dataDir: string;

  beforeAll(async () => {
    const api = openaiBatchApi({ pollsToEnd: 1, answer: () => FAILED });
    upstream = await startFakeUpstream((req, index) => (req.method === 'POST' && req.path === '/v1/responses' ? { json: FAILED } : api.handler(req, index)));
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        oa: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream-openai', formats: ['responses'], batches: 'native', models: [{ id: 'gpt-up', pricing: { input: 1000, output: 3000 } }] },
      },
      batches: { pollIntervalMs: 100 },
      routing: { retry: { attempts: 1 } },
    });
    const cli = async (args: string[]) => String((await runCli(['--config', configFile, '--data-dir', dataDir, ...args])).stdout);
    await cli(['accounts', 'create', '--email', 'f@example.com', '--tier', 'enterprise', '--credits', '1000000']);
    const { key } = JSON.parse(await cli(['keys', 'create', '--account', 'f@example.com', '--json'])) as { key: string };
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('a Chat line to a Responses upstream: an error line, charged 0.5 × the live charge of the same answer', async () => {
    const body = { model: 'oa/gpt-up', messages: [{ role: 'user' as const, content: 'hello' }], max_tokens: 50 };
    await expect(client.chat.completions.create(body)).rejects.toThrow('The model failed.');
    const line = { custom_id: 'f1', method: 'POST', url: '/v1/chat/completions', body };
    const input = await client.files.create({ file: await toFile(Buffer.from(JSON.stringify(line)), 'in.jsonl'), purpose: 'batch' });
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect.poll(async () => (await client.batches.retrieve(created.id)).status, { timeout: 20_000, interval: 50 }).toBe('completed');
    const done = await client.batches.retrieve(created.id);
    expect(done.request_counts).toEqual({ total: 1, completed: 0, failed: 1 });
    const errors = (await (await client.files.content(done.error_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; error: { message: string } });
    expect(errors).toMatchObject([{ custom_id: 'f1', error: { message: 'The model failed.' } }]);
    expect(upstream.requests.filter((r) => r.method === 'POST' && r.path === '/v1/batches')).toHaveLength(1);

    let ledger: ReturnType<typeof readLedger> = [];
    await expect.poll(() => (ledger = readLedger(path.join(dataDir, 'usage.jsonl'))).length, { timeout: 10_000 }).toBe(2);
    const live = ledger.find((l) => l.endpoint !== '/v1/batches')!;
    const batched = ledger.find((l) => l.endpoint === '/v1/batches')!;
    expect(live).toMatchObject({ input_tokens: 40, output_tokens: 7 });
    expect(live.cost_credits).toBeGreaterThan(0);
    expect(batched).toMatchObject({ model: 'oa/gpt-up', input_tokens: 40, output_tokens: 7, estimated: false, price_multiplier: 0.5 });
    expect(batched.request_id.startsWith(`${created.id}:`)).toBe(true);
    expect(batched.charged_credits).toBeCloseTo(live.cost_credits * 0.5, 6);
  }, 60_000);
});
