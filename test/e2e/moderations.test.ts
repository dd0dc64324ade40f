/**
 * POST /v1/moderations through the real gateway with the OpenAI SDK's `moderations.create`
 * (it answered 404 before): the offline `mock` under OpenAI's default model id, the `openai`
 * plugin forwarding to an upstream with its own model id, errors in OpenAI's envelope, the
 * key scope `moderations`, the metrics' route and operation labels, and batches of
 * `/v1/moderations` lines (OpenAI's batch API takes them).
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { parsePrometheus, histogramOf, valueOf } from '../helpers/prometheus.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const CATEGORIES = [
  'harassment', 'harassment/threatening', 'hate', 'hate/threatening', 'illicit', 'illicit/violent', 'self-harm', 'self-harm/intent',
  'self-harm/instructions', 'sexual', 'sexual/minors', 'violence', 'violence/graphic',
];

const UPSTREAM_RESULT = {
  flagged: true,
  categories: Object.fromEntries(CATEGORIES.map((name) => [name, name === 'violence'])),
  category_scores: Object.fromEntries(CATEGORIES.map((name) => [name, name === 'violence' ? 0.91 : 0.001])),
  category_applied_input_types: Object.fromEntries(CATEGORIES.map((name) => [name, ['text']])),
};

describe('POST /v1/moderations', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) =>
      request.path === '/v1/moderations'
        ? { json: { id: 'modr-upstream1', model: 'omni-moderation-2024-09-26', results: [UPSTREAM_RESULT] } }
        : { status: 404, json: { error: { message: 'no' } } },
    );
    gw = await spawnGateway({
      config: {
        providers: {
          mock: { plugin: 'mock' },
          oai: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['text-moderation-latest', 'gpt-4o-mini'] },
        },
        metrics: { token: 'metrics-token-1234' },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it("mock, no model named: OpenAI's default model, one result per text, the whole shape, nothing flagged", async () => {
    const one = await openai.moderations.create({ input: 'I like turtles.' });
    expect(one.id).toMatch(/^modr-/);
    expect(one.model).toBe('mock/omni-moderation-latest');
    expect(one.results).toHaveLength(1);
    const [result] = one.results;
    expect(result!.flagged).toBe(false);
    expect(Object.keys(result!.categories).sort()).toEqual([...CATEGORIES].sort());
    expect(Object.values(result!.categories).every((value) => value === false)).toBe(true);
    expect(Object.keys(result!.category_scores).sort()).toEqual([...CATEGORIES].sort());
    for (const score of Object.values(result!.category_scores)) expect(score).toBeGreaterThanOrEqual(0);
    expect(result!.category_applied_input_types).toEqual(Object.fromEntries(CATEGORIES.map((name) => [name, ['text']])));
    const two = await openai.moderations.create({ model: 'mock/omni-moderation-latest', input: ['first', 'second'] });
    expect(two.results).toHaveLength(2);
  });

  it('mock, text and an image: one result, the image judged where omni-moderation judges images', async () => {
    const answer = await openai.moderations.create({
      model: 'omni-moderation-latest',
      input: [
        { type: 'text', text: 'a picture' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      ],
    });
    expect(answer.results).toHaveLength(1);
    const applied = answer.results[0]!.category_applied_input_types;
    expect(applied.violence).toEqual(['text', 'image']);
    expect(applied.hate).toEqual(['text']);
  });

  it('openai plugin: the body goes upstream with its model id, the answer comes back under the gateway id', async () => {
    const answer = await openai.moderations.create({ model: 'oai/text-moderation-latest', input: 'hit him' });
    expect(answer).toEqual({ id: 'modr-upstream1', model: 'oai/text-moderation-latest', results: [UPSTREAM_RESULT] });
    const sent = upstream.requests.find((r) => r.path === '/v1/moderations')!;
    expect(sent.json).toEqual({ model: 'text-moderation-latest', input: 'hit him' });
    expect(sent.headers.authorization).toBe('Bearer x');
  });

  it("a chat model, an empty or missing input: errors in OpenAI's envelope, nothing sent upstream", async () => {
    const before = upstream.requests.length;
    await expect(openai.moderations.create({ model: 'oai/gpt-4o-mini', input: 'hi' })).rejects.toMatchObject({ status: 400, code: 'bad_request' });
    await expect(openai.moderations.create({ input: [] as string[] })).rejects.toMatchObject({ status: 422, param: 'input' });
    await expect(openai.moderations.create({} as { input: string })).rejects.toMatchObject({ status: 400, param: 'input' });
    await expect(openai.moderations.create({ input: [{ type: 'audio' }] as never })).rejects.toMatchObject({ status: 422, param: 'input' });
    await expect(openai.moderations.create({ model: 'nope/none', input: 'hi' })).rejects.toMatchObject({ status: 404 });
    expect(upstream.requests.length).toBe(before);
  });

  it("a key scoped to other endpoints is refused; one scoped to 'moderations' is served", async () => {
    const create = async (endpoints: string) => {
      const made = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--endpoints', endpoints, '--json']);
      expect(String(made.stderr)).toBe('');
      return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (JSON.parse(String(made.stdout)) as { key: string }).key, maxRetries: 0 });
    };
    const chatOnly = await create('chat');
    await expect(chatOnly.moderations.create({ input: 'hi' })).rejects.toMatchObject({ status: 403, error: { code: 'authorization_error', details: { endpoint: 'moderations' } } });
    const scoped = await create('moderations');
    expect((await scoped.moderations.create({ input: 'hi' })).results).toHaveLength(1);
  });

  it("metrics: the route, api_format and gen_ai_operation_name say moderations", async () => {
    await openai.moderations.create({ input: 'counted' });
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-1234' } });
    const families = parsePrometheus(await res.text());
    expect(valueOf(families, 'gateway_requests_total', { route: '/v1/moderations', status: '200', api_format: 'moderations' })).toBeGreaterThan(0);
    expect(histogramOf(families, 'gen_ai_server_request_duration_seconds', { gen_ai_operation_name: 'moderations', gen_ai_request_model: 'mock/omni-moderation-latest' }).count).toBeGreaterThan(0);
  });

  it('batches of /v1/moderations lines: the default model, the openai plugin, results in OpenAI output lines, a bad line fails alone', async () => {
    const lines = [
      { custom_id: 'default', method: 'POST', url: '/v1/moderations', body: { input: 'hello' } },
      { custom_id: 'upstream', method: 'POST', url: '/v1/moderations', body: { model: 'oai/text-moderation-latest', input: 'hit him' } },
      { custom_id: 'empty', method: 'POST', url: '/v1/moderations', body: { input: [] } },
    ];
    const file = await openai.files.create({ file: await toFile(Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n') + '\n'), 'moderate.jsonl'), purpose: 'batch' });
    const created = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/moderations', completion_window: '24h' });
    expect(created.endpoint).toBe('/v1/moderations');
    const batch = await until('the batch ends', async () => {
      const now = await openai.batches.retrieve(created.id);
      return ['completed', 'failed', 'expired', 'cancelled'].includes(now.status) ? now : undefined;
    });
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const read = async (id: string) => (await (await openai.files.content(id)).text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const out = Object.fromEntries((await read(batch.output_file_id!)).map((line) => [line.custom_id, line]));
    expect(out.default.response).toMatchObject({ status_code: 200, body: { model: 'mock/omni-moderation-latest', results: [{ flagged: false }] } });
    expect(out.upstream.response.body).toEqual({ id: 'modr-upstream1', model: 'oai/text-moderation-latest', results: [UPSTREAM_RESULT] });
    const errors = await read(batch.error_file_id!);
    expect(errors.map((line) => [line.custom_id, line.response.status_code, line.error.code])).toEqual([['empty', 422, 'validation_error']]);
  });
});
