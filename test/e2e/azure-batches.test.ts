import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { azureBatchApi, type FakeBatchApi } from '../helpers/fake-batch-apis.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/**
 * Native batches on Azure OpenAI (`batches: 'native'` on an `azure` provider): the official
 * openai client against the gateway, the gateway against a fake of Azure's files and batches
 * API on both of its paths (v1, and the dated one with `api-version`).
 */

const API_KEY = 'azure-key-0123456789';
const PRICING = { input: 1000, output: 3000 };
type Line = { custom_id: string; response: { status_code: number; body: Record<string, any> } | null; error: { code: string; message: string } | null };

function chatLine(customId: string, model: string, text: string) {
  return { custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: text }], max_tokens: 50 } };
}

describe('native batches on Azure OpenAI (official openai client; fake Azure files and batches API)', () => {
  let api: FakeBatchApi;
  let azure: FakeUpstream;
  let gw: SpawnedGateway | undefined;
  let client: OpenAI;

  beforeAll(async () => {
    api = azureBatchApi({ apiKey: API_KEY, pollsToEnd: 2 });
    azure = await startFakeUpstream(api.handler);
    const dir = tempDir('gw-azure-batches-');
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        az: { plugin: 'azure', endpoint: azure.url, apiKey: API_KEY, batches: 'native', models: [{ id: 'gpt-4.1', deployment: 'gpt41-global-batch', pricing: PRICING }] },
        dated: { plugin: 'azure', endpoint: azure.url, apiKey: API_KEY, apiVersion: '2025-04-01-preview', batches: 'native', models: [{ id: 'gpt-4.1-mini', deployment: 'mini-batch', pricing: PRICING }] },
      },
      batches: { pollIntervalMs: 100 },
    });
    const cli = async (...args: string[]) => {
      const r = await runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
      expect(r.exitCode, String(r.stderr)).toBe(0);
      return String(r.stdout);
    };
    await cli('accounts', 'create', '--email', 'az@example.com', '--tier', 'enterprise', '--credits', '1000000');
    const { key } = JSON.parse(await cli('keys', 'create', '--account', 'az@example.com', '--json')) as { key: string };
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await azure?.close();
  });

  const runBatch = async (lines: unknown[]) => {
    const input = await client.files.create({ file: await toFile(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'in.jsonl'), purpose: 'batch' });
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    return until('the batch to end', async () => {
      const b = await client.batches.retrieve(created.id);
      return ['completed', 'failed', 'cancelled', 'expired'].includes(b.status) ? b : undefined;
    });
  };
  const linesOf = async (fileId: string | null | undefined): Promise<Line[]> =>
    fileId ? (await (await client.files.content(fileId)).text()).trim().split('\n').map((l) => JSON.parse(l) as Line) : [];

  it.each([
    ['v1', 'az/gpt-4.1', 'gpt41-global-batch', /^\/openai\/v1\/(files|batches)/],
    ['dated', 'dated/gpt-4.1-mini', 'mini-batch', /^\/openai\/(files|batches)[^?]*\?api-version=2025-04-01-preview/],
  ])('%s path: one file and one batch upstream with the deployment as model; results and errors back under the caller ids; no live calls', async (_name, model, deployment, where) => {
    const before = azure.requests.length;
    const done = await runBatch([chatLine('one', model, 'hello'), chatLine('two', model, 'please FAIL'), chatLine('three', model, 'hi again')]);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const out = await linesOf(done.output_file_id);
    expect(out.map((l) => l.custom_id).sort()).toEqual(['one', 'three']);
    for (const l of out) expect(l.response).toMatchObject({ status_code: 200, body: { object: 'chat.completion' } });
    expect(await linesOf(done.error_file_id)).toMatchObject([{ custom_id: 'two', response: { status_code: 400 } }]);

    const calls = azure.requests.slice(before);
    expect(calls.every((r) => where.test(r.path) && r.headers['api-key'] === API_KEY)).toBe(true);
    expect(calls.filter((r) => r.method === 'POST' && /\/files(\?|$)/.test(r.path))).toHaveLength(1);
    expect(calls.filter((r) => r.method === 'POST' && /\/batches(\?|$)/.test(r.path))).toHaveLength(1);
    expect(calls.some((r) => /chat\/completions/.test(r.path))).toBe(false);
    const upstream = [...api.batches.values()].at(-1)!;
    expect(upstream.requests.map((r) => r.body.model)).toEqual([deployment, deployment, deployment]);
  }, 60_000);
});
