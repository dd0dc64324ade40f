/**
 * A request's own fallback models (OpenRouter's `models`, sent by the openai SDK as an extra body
 * field): when every provider of `model` fails, the next model of the list serves, on the
 * client's format or converted; the field never reaches an upstream (strict fakes refuse unknown
 * parameters, as OpenAI does); `model` may be left out (the list's first); the key's model scope
 * and the credit hold cover the list. Real CLI, official openai SDK, fake upstreams.
 */
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { until } from '../helpers/until.ts';

/** What the strict fakes answer a request without tools. */
const DONE = 'Done: the file is written.';

describe("a request's own fallback models (OpenRouter's `models`)", () => {
  let down: FakeUpstream;
  let chat: StrictFake;
  let responses: StrictFake;
  let claude: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let key: string;
  let scopedKey: string;

  beforeAll(async () => {
    down = await startFakeUpstream(() => ({ status: 503, json: { error: { message: 'overloaded', type: 'server_error' } } }));
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4.1': { maxOutput: 32000, reasoning: false } } });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } } });
    claude = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } } });
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
        providers: {
          down: { plugin: 'openai', baseURL: `${down.url}/v1`, apiKey: 'x', formats: ['chat', 'responses'], models: ['flaky', 'flaky-r', 'flaky-c', 'flaky-d'] },
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4.1'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: claude.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000 }] },
        },
        routing: { retry: { attempts: 1 }, models: { 'down/flaky-c': { fallbacks: ['oc/gpt-4.1'] } } },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'f@example.test', '--tier', 'enterprise', '--credits', '1000000'])).exitCode).toBe(0);
    const keyOf = async (extra: string[]) => (JSON.parse(String((await cli(['keys', 'create', '--account', 'f@example.test', '--json', ...extra])).stdout)) as { key: string }).key;
    key = await keyOf([]);
    scopedKey = await keyOf(['--models', 'down/*']);
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([down?.close(), chat?.close(), responses?.close(), claude?.close()]);
  });

  const bodyOf = (fake: FakeUpstream) => fake.requests.at(-1)!.json as Record<string, unknown>;

  it('Chat: the primary fails, the next model serves; `models` never goes upstream; the answer and headers say who served', async () => {
    const before = down.requests.length;
    const { data, response } = await client.chat.completions
      .create({ model: 'down/flaky', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20, models: ['oc/gpt-4.1', 'ant/claude-up'], route: 'fallback' } as never)
      .withResponse();
    expect(down.requests.length).toBe(before + 1);
    expect(down.requests.at(-1)!.json).not.toHaveProperty('models');
    expect(chat.rejections).toEqual([]);
    expect(bodyOf(chat)).toMatchObject({ model: 'gpt-4.1' });
    expect(bodyOf(chat)).not.toHaveProperty('models');
    expect(bodyOf(chat)).not.toHaveProperty('route');
    expect(data.choices[0].message.content).toBe(DONE);
    expect(response.headers.get('x-fallback-used')).toBe('true');
    expect(response.headers.get('x-routing-resolved-model')).toBe('oc/gpt-4.1');
    // The client's own pick is billed at its price: the operator's fallback discount is for the chain it configured.
    expect(response.headers.get('x-fallback-discount')).toBe('0');
  });

  it('Chat, streamed, converted: the list reaches an Anthropic model when the others fail', async () => {
    const stream = await client.chat.completions.create({ model: 'down/flaky', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 20, stream: true, models: ['ant/claude-up'] } as never);
    let text = '';
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(DONE);
    expect(claude.rejections).toEqual([]);
    expect(bodyOf(claude)).toMatchObject({ model: 'claude-up' });
    expect(bodyOf(claude)).not.toHaveProperty('models');
  });

  it('`model` left out: the first of `models` is the primary, the rest its fallbacks', async () => {
    const before = down.requests.length;
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ models: ['down/flaky', 'oc/gpt-4.1'], messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(down.requests.length).toBe(before + 1);
    expect(down.requests.at(-1)!.json).toMatchObject({ model: 'flaky' });
    expect(res.headers.get('x-routing-resolved-model')).toBe('oc/gpt-4.1');
  });

  it('Responses: the same list, on a Responses upstream and converted to Chat', async () => {
    const served = await client.responses.create({ model: 'down/flaky-r', input: 'hello', models: ['or/gpt-5'] } as never);
    expect(served.output_text).toBe(DONE);
    expect(responses.rejections).toEqual([]);
    expect(bodyOf(responses)).not.toHaveProperty('models');
    const converted = await client.responses.create({ model: 'down/flaky-r', input: 'hello again', models: ['oc/gpt-4.1'] } as never);
    expect(converted.output_text).toBe(DONE);
    expect(chat.rejections).toEqual([]);
  });

  it('refusals: not a list of ids (422), an unknown id (404 naming models), all before any upstream call', async () => {
    const before = down.requests.length + chat.requests.length;
    const send = (extra: Record<string, unknown>) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'down/flaky', messages: [{ role: 'user', content: 'hi' }], ...extra }),
      });
    for (const models of ['oc/gpt-4.1', [], [42], Array.from({ length: 9 }, () => 'oc/gpt-4.1')]) {
      const res = await send({ models });
      const body = (await res.json()) as { error: { code: string; param?: string } };
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(body.error.code).toBe('validation_error');
    }
    const res = await send({ models: ['oc/gpt-4.1', 'nobody/nothing'] });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(404);
    expect(body.error.code).toBe('model_not_found');
    expect(body.error.message).toContain("'nobody/nothing' in 'models'");
    expect(down.requests.length + chat.requests.length).toBe(before);
  });

  it("an id an OpenRouter app sends in `models` that no provider here serves is told why, as in `model` (before: no reason)", async () => {
    const send = async (extra: Record<string, unknown>) => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...extra }),
      });
      return { status: res.status, body: (await res.json()) as { error: { code: string; message: string; param: string | null } } };
    };
    // OpenRouter's ids: the prefix names no provider configured here.
    const asModel = await send({ model: 'anthropic/claude-3.5-sonnet' });
    const inList = await send({ model: 'oc/gpt-4.1', models: ['anthropic/claude-3.5-sonnet'] });
    expect(asModel.status).toBe(404);
    expect(asModel.body.error.message).toContain("no provider is named 'anthropic' (configured: down, oc, or, ant)");
    expect(inList.status).toBe(404);
    expect(inList.body.error.param).toBe('models');
    expect(inList.body.error.message).toBe(
      "The model 'anthropic/claude-3.5-sonnet' in 'models' does not exist or is not served by any configured provider: no provider is named 'anthropic' (configured: down, oc, or, ant). GET /v1/models lists the models served.",
    );
    // A provider that does not list the model: named the same way.
    const unlisted = await send({ model: 'oc/gpt-4.1', models: ['oc/gpt-4o'] });
    expect(unlisted.body.error.message).toContain("in 'models' does not exist or is not served by any configured provider: provider 'oc' does not list 'gpt-4o' among its models");
  });

  it("a key scoped to the primary only may not name a fallback outside its scope (403 before any upstream call)", async () => {
    const scoped = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: scopedKey, maxRetries: 0 });
    const before = down.requests.length;
    const error = await scoped.chat.completions.create({ model: 'down/flaky', messages: [{ role: 'user', content: 'hi' }], models: ['oc/gpt-4.1'] } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('oc/gpt-4.1');
    expect(down.requests.length).toBe(before);
  });

  // Before, the operator saw none of the fallbacks above: `gateway status` had no fallback figure and no series named the models.
  it('the operator sees the fallbacks served: `gateway status` (text and --json) and GET /metrics, by model', async () => {
    const cli = (...args: string[]) => runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, ...args]);
    const status = await cli('status', '--json');
    expect(status.exitCode, String(status.stderr)).toBe(0);
    const live = JSON.parse(String(status.stdout)) as { fallbacks: number; total_fallbacks: number; top_fallbacks: unknown[]; latest: Array<{ fallback_from: string | null }> };
    expect(live.fallbacks).toBe(5);
    expect(live.total_fallbacks).toBe(5);
    expect(live.top_fallbacks).toEqual([
      { from: 'down/flaky', to: 'oc/gpt-4.1', requests: 2 },
      { from: 'down/flaky', to: 'ant/claude-up', requests: 1 },
      { from: 'down/flaky-r', to: 'oc/gpt-4.1', requests: 1 },
      { from: 'down/flaky-r', to: 'or/gpt-5', requests: 1 },
    ]);
    expect(live.latest.filter((r) => r.fallback_from !== null)).toHaveLength(5);
    const text = String((await cli('status')).stdout);
    expect(text).toMatch(/fallbacks\s+5 in the last \d+ s \(5 since start\): down\/flaky -> oc\/gpt-4\.1 \(2\), down\/flaky -> ant\/claude-up \(1\)/);
    expect(text).toMatch(/FALLBACK FROM/);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('gateway_model_fallbacks_total{from_provider="down",from_model="flaky",to_provider="oc",to_model="gpt-4.1"} 2');
    expect(metrics).toContain('gateway_model_fallbacks_total{from_provider="down",from_model="flaky-r",to_provider="or",to_model="gpt-5"} 1');
  });

  it('a batch line with its own list runs through the live exchange, `model` left out too (before, such a line failed the whole batch: body.model is required)', async () => {
    const line = (id: string, body: Record<string, unknown>) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { messages: [{ role: 'user', content: id }], max_tokens: 20, ...body } });
    const file = await client.files.create({
      file: await toFile(Buffer.from([line('both', { model: 'down/flaky', models: ['oc/gpt-4.1'] }), line('list-only', { models: ['down/flaky', 'oc/gpt-4.1'] })].join('\n')), 'in.jsonl'),
      purpose: 'batch',
    });
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const batch = await until('the batch to end', async () => {
      const b = await client.batches.retrieve(created.id);
      return ['completed', 'failed', 'expired', 'cancelled'].includes(b.status) ? b : undefined;
    });
    expect(batch.status, JSON.stringify(batch.errors)).toBe('completed');
    const lines = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n').map((text) => JSON.parse(text) as { custom_id: string; response: { status_code: number; body: any } });
    expect(Object.fromEntries(lines.map((l) => [l.custom_id, [l.response.status_code, l.response.body.choices[0].message.content]]))).toEqual({ both: [200, DONE], 'list-only': [200, DONE] });
  });

  it("the operator's chain keeps its fallback discount beside the request's own list (before: the client's own pick got it too)", async () => {
    const viaChain = await client.chat.completions
      .create({ model: 'down/flaky-c', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20, models: ['ant/claude-up'] } as never)
      .withResponse();
    expect(viaChain.response.headers.get('x-routing-resolved-model')).toBe('oc/gpt-4.1');
    expect(viaChain.response.headers.get('x-fallback-discount')).toBe('0.1');
    const own = await client.chat.completions
      .create({ model: 'down/flaky-d', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20, models: ['ant/claude-up'] } as never)
      .withResponse();
    expect(own.response.headers.get('x-routing-resolved-model')).toBe('ant/claude-up');
    expect(own.response.headers.get('x-fallback-discount')).toBe('0');
  });
});
