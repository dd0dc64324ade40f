import { afterEach, describe, expect, it } from 'vitest';
import anthropicPlugin from '../../plugins/anthropic/index.ts';
import openaiPlugin from '../../plugins/openai/index.ts';
import mockPlugin from '../../plugins/mock/index.ts';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';
import type { BatchCapability, NativeBatchResult, ProviderInstance, ProviderPlugin } from '../../src/plugin-kit/index.ts';
import { DEFAULT_TIMEOUTS, UndiciHttpFactory } from '../../src/upstream/index.ts';
import { anthropicBatchApi, openaiBatchApi } from '../helpers/fake-batch-apis.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';

const log = { info: () => undefined, warn: () => undefined };
const signal = new AbortController().signal;
const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function setUp(plugin: ProviderPlugin<any>, baseURL: string, apiKey: string, options: unknown = {}): Promise<BatchCapability> {
  const http = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
  const instance: ProviderInstance = await plugin.setup({ id: 'p', baseURL, apiKey, headers: {}, timeouts: DEFAULT_TIMEOUTS, options: plugin.options?.parse(options) ?? options, http, log });
  opened.push({ close: async () => (await instance.close?.(), await http.closeAll()) });
  expect(instance.batches).toBeDefined();
  return instance.batches!;
}

async function fake(handler: Parameters<typeof startFakeUpstream>[0]): Promise<FakeUpstream> {
  const up = await startFakeUpstream(handler);
  opened.push(up);
  return up;
}

async function collect(iterable: AsyncIterable<NativeBatchResult>): Promise<NativeBatchResult[]> {
  const out: NativeBatchResult[] = [];
  for await (const r of iterable) out.push(r);
  return out.sort((a, b) => a.customId.localeCompare(b.customId));
}

const chat = (text: string) => ({ model: 'gpt-up', messages: [{ role: 'user', content: text }] });

describe('openai plugin: batches capability against a fake of OpenAI files/batches', () => {
  it('uploads the JSONL (purpose batch), creates the batch, maps states over polls, reads output and error files', async () => {
    const api = openaiBatchApi({ pollsToEnd: 3 });
    const up = await fake(api.handler);
    const batches = await setUp(openaiPlugin, `${up.url}/v1`, 'sk-upstream-openai');
    expect(batches.formats).toEqual(['chat', 'responses']);
    const ref = await batches.submit({ format: 'chat', batchId: 'batch_x', signal, requests: [{ customId: 'line-0', body: chat('ok') }, { customId: 'line-1', body: chat('FAIL') }] });
    const upload = up.requests.find((r) => r.path === '/v1/files')!;
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(upload.body).toContain('name="purpose"');
    expect(upload.body).toContain('{"custom_id":"line-0","method":"POST","url":"/v1/chat/completions","body":{"model":"gpt-up"');
    expect(ref.id).toMatch(/^batch_/);
    expect(ref.state.input_file_id).toMatch(/^file-/);
    const phases = [];
    let state = ref.state;
    for (let i = 0; i < 3; i++) {
      const status = await batches.poll({ id: ref.id, state }, signal);
      phases.push(status.phase);
      state = status.state ?? state;
    }
    expect(phases).toEqual(['running', 'running', 'ended']);
    expect(state.output_file_id).toMatch(/^file-/);
    const results = await collect(batches.results({ id: ref.id, state }, signal));
    expect(results).toMatchObject([
      { customId: 'line-0', type: 'succeeded', body: { object: 'chat.completion' } },
      { customId: 'line-1', type: 'errored', status: 400, body: { error: { type: 'invalid_request_error' } } },
    ]);
  });

  it('cancel: cancelling, then ended with the finished half; a refused batch is failed with its reason', async () => {
    const api = openaiBatchApi({ hold: true });
    const up = await fake(api.handler);
    const batches = await setUp(openaiPlugin, `${up.url}/v1`, 'sk-upstream-openai');
    const ref = await batches.submit({ format: 'responses', batchId: 'batch_y', signal, requests: [0, 1, 2, 3].map((i) => ({ customId: `line-${i}`, body: chat(`n${i}`) })) });
    expect(up.requests.find((r) => r.path === '/v1/batches')!.json).toMatchObject({ endpoint: '/v1/responses' });
    await batches.cancel(ref, signal);
    const status = await batches.poll(ref, signal);
    expect(status.phase).toBe('ended');
    expect((await collect(batches.results({ id: ref.id, state: status.state! }, signal))).map((r) => r.customId)).toEqual(['line-0', 'line-1']);
    // A 409 on cancelling an ended batch is an upstream error the gateway maps (no silent success).
    await expect(batches.cancel(ref, signal)).rejects.toMatchObject({ status: 409 });

    up.setHandler((req) =>
      req.method === 'GET' ? { json: { id: 'batch_f', object: 'batch', status: 'failed', errors: { object: 'list', data: [{ code: 'invalid_json', message: 'bad line', line: 1 }] }, request_counts: { total: 0, completed: 0, failed: 0 } } } : { status: 404, json: {} },
    );
    expect(await batches.poll({ id: 'batch_f', state: {} }, signal)).toMatchObject({ phase: 'failed', error: { code: 'invalid_json', message: 'bad line' } });
  });

  it('error-file lines: batch_expired → expired, batch_cancelled → canceled, no response → errored', async () => {
    const up = await fake((req) => {
      if (req.path.endsWith('/content'))
        return {
          text: [
            { id: 'r1', custom_id: 'line-1', response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } },
            { id: 'r2', custom_id: 'line-2', response: null, error: { code: 'batch_cancelled', message: 'cancelled' } },
            { id: 'r3', custom_id: 'line-3', response: null, error: { code: 'server_error', message: 'boom' } },
          ]
            .map((l) => JSON.stringify(l))
            .join('\n'),
        };
      return { status: 404, json: {} };
    });
    const batches = await setUp(openaiPlugin, `${up.url}/v1`, 'k');
    expect(await collect(batches.results({ id: 'b', state: { error_file_id: 'file-e' } }, signal))).toEqual([
      { customId: 'line-1', type: 'expired' },
      { customId: 'line-2', type: 'canceled' },
      { customId: 'line-3', type: 'errored', status: 500, body: { error: { message: 'boom', code: 'server_error' } } },
    ]);
  });
});

describe('anthropic plugin: batches capability against a fake of the Message Batches API', () => {
  it('creates with requests[{custom_id, params}], polls processing_status, reads results_url: succeeded, errored, canceled', async () => {
    const api = anthropicBatchApi({ hold: true });
    const up = await fake(api.handler);
    const batches = await setUp(anthropicPlugin, up.url, 'sk-upstream-anthropic', { beta: ['message-batches-2024-09-24'] });
    expect(batches.formats).toEqual(['messages']);
    const params = (text: string) => ({ model: 'claude-up', max_tokens: 10, messages: [{ role: 'user', content: text }] });
    const ref = await batches.submit({ format: 'messages', batchId: 'batch_z', signal, requests: ['a', 'FAIL', 'c', 'd'].map((t, i) => ({ customId: `line-${i}`, body: params(t) })) });
    const create = up.requests.find((r) => r.path === '/v1/messages/batches')!;
    expect(create.headers).toMatchObject({ 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-upstream-anthropic', 'anthropic-beta': 'message-batches-2024-09-24' });
    expect(create.json).toEqual({ requests: ['a', 'FAIL', 'c', 'd'].map((t, i) => ({ custom_id: `line-${i}`, params: params(t) })) });
    expect(ref.id).toMatch(/^msgbatch_/);
    expect(await batches.poll(ref, signal)).toMatchObject({ phase: 'running', counts: { total: 4, succeeded: 0, failed: 0 }, state: { results_url: null } });
    await batches.cancel(ref, signal);
    const ended = await batches.poll(ref, signal);
    expect(ended).toMatchObject({ phase: 'ended', counts: { total: 4, succeeded: 1, failed: 3 } });
    expect(ended.state!.results_url).toBe(`${up.url}/v1/messages/batches/${ref.id}/results`);
    expect(await collect(batches.results({ id: ref.id, state: ended.state! }, signal))).toEqual([
      { customId: 'line-0', type: 'succeeded', body: expect.objectContaining({ type: 'message', content: [{ type: 'text', text: 'echo: a' }] }) },
      { customId: 'line-1', type: 'errored', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'The prompt asked to FAIL.' }, request_id: null } },
      { customId: 'line-2', type: 'canceled' },
      { customId: 'line-3', type: 'canceled' },
    ]);
  });

  it('a results_url on another host is not followed with the key: the documented path on the configured upstream is read', async () => {
    const api = anthropicBatchApi();
    const up = await fake(api.handler);
    const batches = await setUp(anthropicPlugin, up.url, 'sk-upstream-anthropic');
    const ref = await batches.submit({ format: 'messages', batchId: 'b', signal, requests: [{ customId: 'line-0', body: { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] } }] });
    await batches.poll(ref, signal);
    await batches.poll(ref, signal);
    const results = await collect(batches.results({ id: ref.id, state: { results_url: 'http://127.0.0.1:9/steal' } }, signal));
    expect(results).toMatchObject([{ customId: 'line-0', type: 'succeeded' }]);
    expect(up.requests.at(-1)!.path).toBe(`/v1/messages/batches/${ref.id}/results`);
  });

  it('expired results and error types map to their statuses (overloaded 529, api_error 500)', async () => {
    const lines = [
      { custom_id: 'line-0', result: { type: 'expired' } },
      { custom_id: 'line-1', result: { type: 'errored', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } },
      { custom_id: 'line-2', result: { type: 'errored', error: { type: 'error', error: { type: 'api_error', message: 'Internal' } } } },
    ];
    const up = await fake(() => ({ text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n' }));
    const batches = await setUp(anthropicPlugin, up.url, 'k');
    expect((await collect(batches.results({ id: 'b', state: {} }, signal))).map((r) => [r.customId, r.type, 'status' in r ? r.status : undefined])).toEqual([
      ['line-0', 'expired', undefined],
      ['line-1', 'errored', 529],
      ['line-2', 'errored', 500],
    ]);
  });
});

describe("provider option batches: 'native' | 'emulated'", () => {
  it('is a known provider key; other values are config errors', () => {
    expect(parseConfig({ providers: { a: { plugin: 'openai', baseURL: 'http://127.0.0.1:1/v1', batches: 'native' } } }, 'c.ts').providers.a.batches).toBe('native');
    expect(() => parseConfig({ providers: { a: { plugin: 'openai', batches: 'nativ' } } }, 'c.ts')).toThrow(/providers\.a\.batches/);
  });

  it("'native' on a plugin without a batches capability stops start-up with one clear line; 'emulated' is fine", async () => {
    expect(mockPlugin.name).toBe('mock');
    const config = parseConfig({ providers: { m: { plugin: 'mock', batches: 'native' } } }, 'c.ts');
    await expect(ProviderRegistry.create(config, { configDir: process.cwd(), log, source: 'c.ts' })).rejects.toThrow(
      "c.ts: providers.m.batches is 'native', but the plugin 'mock' has no native batch API; use 'emulated' (the default)",
    );
    const ok = await ProviderRegistry.create(parseConfig({ providers: { m: { plugin: 'mock', batches: 'emulated' } } }, 'c.ts'), { configDir: process.cwd(), log });
    expect(ok.providers.get('m')?.batches).toBe('emulated');
    await ok.close();
  });
});
