/**
 * OpenRouter's usage accounting on the gateway: a Chat request with `usage: {include: true}` gets
 * what the gateway charged as `usage.cost` (USD, as `GET /v1/key` says spend), `is_byok: false`,
 * in a whole answer and in a stream's usage chunk: passed through to a Chat upstream, to an
 * OpenRouter upstream (whose own `cost` is what the operator pays it), converted to Claude. A
 * request that does not ask keeps its answer as it came, byte for byte. And OpenRouter's
 * generation stats, `GET /v1/generation?id=` (OpenRouter's `/api/v1/generation`), for the calling
 * key's own requests. Real CLI, official openai SDK, fake upstreams.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

/** 10 prompt and 2 completion tokens at 1000 USD per million tokens each: 0.012 USD (12 credits). */
const PRICING = { input: 1000, output: 1000 };
const CHARGED_USD = 0.012;
const USAGE = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };

/** A Chat upstream's answer, whole or streamed (the usage chunk only when asked for). */
function chatReply(body: Json, usage: Json) {
  // Each answer's own id names its request's `user` (generation stats look answers up by it).
  const base = { id: `chatcmpl-${body.user ?? 'up1'}`, created: 1_700_000_000, model: body.model };
  if (!body.stream) return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage } };
  const chunks: Json[] = [
    { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] },
    { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  ];
  if (body.stream_options?.include_usage === true || body.usage?.include === true) chunks.push({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  // `user: 'slow'`: each record in a network chunk of its own, the usage chunk well before the end.
  return { headers: { 'content-type': 'text/event-stream' }, sse: chatSse(chunks), ...(body.user === 'slow' ? { delayMs: 30 } : {}) };
}

describe("OpenRouter's usage accounting (usage.cost) and generation stats", () => {
  let up: FakeUpstream;
  let openrouter: FakeUpstream;
  let claude: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;
  let configFile: string;
  let dataDir: string;

  const ask = (model: string, extra: Json = {}) => ({ model, messages: [{ role: 'user', content: 'hello' }], ...extra }) as never;
  const spent = async (key = gw.key!): Promise<number> => {
    const res = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    return ((await res.json()) as { data: { usage: number } }).data.usage;
  };
  const readStream = async (stream: unknown) => {
    let usage: Json | undefined;
    let text = '';
    for await (const chunk of stream as AsyncIterable<OpenAI.ChatCompletionChunk>) {
      if (chunk.usage) usage = chunk.usage as unknown as Json;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    return { usage, text };
  };

  beforeAll(async () => {
    up = await startFakeUpstream((request) => chatReply(request.json as Json, USAGE));
    // OpenRouter answers with its own cost, what the gateway's operator pays it.
    openrouter = await startFakeUpstream((request) => chatReply(request.json as Json, { ...USAGE, cost: 0.5, is_byok: false, cost_details: { upstream_inference_cost: null, upstream_inference_prompt_cost: 0.4, upstream_inference_completions_cost: 0.1 } }));
    claude = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } } });
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, {
      providers: {
        up: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', models: [{ id: 'm', pricing: PRICING, maxOutputTokens: 8000 }] },
        orr: { plugin: 'openai', baseURL: `${openrouter.url}/api/v1`, apiKey: 'x', openRouterFields: 'forward', models: [{ id: 'anthropic/claude-sonnet-4.5', pricing: PRICING }] },
        ant: { plugin: 'anthropic', baseURL: claude.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', maxOutputTokens: 64000, contextWindow: 200000, pricing: { input: 3, output: 15 } }] },
      },
      routing: { retry: { attempts: 1 } },
    });
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([up?.close(), openrouter?.close(), claude?.close()]);
  });

  it('usage {include: true}, whole answer: usage.cost is what the key was charged (USD), is_byok false; the upstream gets no usage field', async () => {
    const before = await spent();
    const answer = await client.chat.completions.create(ask('up/m', { usage: { include: true } }));
    const usage = answer.usage as unknown as Json;
    expect(usage).toMatchObject({ ...USAGE, cost: CHARGED_USD, is_byok: false });
    expect(up.requests.at(-1)!.json).not.toHaveProperty('usage');
    expect((await spent()) - before).toBeCloseTo(usage.cost, 9);
    // An output cap over the model's maximum, lowered on the way (another preparation of the body): the same.
    const capped = await client.chat.completions.create(ask('up/m', { max_tokens: 100_000, usage: { include: true } }));
    expect(up.requests.at(-1)!.json!.max_tokens).toBe(8000);
    expect(capped.usage).toMatchObject({ cost: CHARGED_USD, is_byok: false });
  });

  it('usage {include: true}, streamed: the last usage chunk carries the cost; the text comes whole', async () => {
    const before = await spent();
    const { usage, text } = await readStream(await client.chat.completions.create(ask('up/m', { stream: true, usage: { include: true } })));
    expect(text).toBe('hi');
    expect(usage).toMatchObject({ ...USAGE, cost: CHARGED_USD, is_byok: false });
    expect((await spent()) - before).toBeCloseTo(CHARGED_USD, 9);
    const slow = await readStream(await client.chat.completions.create(ask('up/m', { stream: true, usage: { include: true }, user: 'slow' })));
    expect(slow.text).toBe('hi');
    expect(slow.usage).toMatchObject({ ...USAGE, cost: CHARGED_USD, is_byok: false });
  });

  it('without usage.include the answer is the upstream\'s bytes, whole and streamed: no cost added', async () => {
    const whole = await client.chat.completions.create(ask('up/m')).asResponse();
    const wholeText = await whole.text();
    expect(wholeText).toBe(JSON.stringify(chatReply({ model: 'm' }, USAGE).json));
    expect(wholeText).not.toContain('cost');
    const streamed = await client.chat.completions.create(ask('up/m', { stream: true, stream_options: { include_usage: true } })).asResponse();
    const streamedText = await streamed.text();
    expect(streamedText).toBe((chatReply({ model: 'm', stream: true, stream_options: { include_usage: true } }, USAGE) as { sse: string[] }).sse.join(''));
    expect(streamedText).not.toContain('cost');
  });

  it("to an OpenRouter upstream: OpenRouter's own cost is replaced by the gateway's charge when asked, and passed as it came when not", async () => {
    const asked = await client.chat.completions.create(ask('orr/anthropic/claude-sonnet-4.5', { usage: { include: true } }));
    const usage = asked.usage as unknown as Json;
    expect(usage).toMatchObject({ ...USAGE, cost: CHARGED_USD, is_byok: false });
    expect(usage).not.toHaveProperty('cost_details');
    expect(openrouter.requests.at(-1)!.json!.usage).toEqual({ include: true });
    const streamed = await readStream(await client.chat.completions.create(ask('orr/anthropic/claude-sonnet-4.5', { stream: true, usage: { include: true } })));
    expect(streamed.usage).toMatchObject({ ...USAGE, cost: CHARGED_USD, is_byok: false });
    expect(streamed.usage).not.toHaveProperty('cost_details');
    const plain = await client.chat.completions.create(ask('orr/anthropic/claude-sonnet-4.5')).asResponse();
    expect(((await plain.json()) as Json).usage.cost).toBe(0.5);
  });

  it('converted to Claude: the cost is in the whole answer and in the stream (which gets its usage chunk without stream_options)', async () => {
    let before = await spent();
    const answer = await client.chat.completions.create(ask('ant/claude-sonnet-4-5', { max_tokens: 200, usage: { include: true } }));
    const usage = answer.usage as unknown as Json;
    expect(usage.cost).toBeGreaterThan(0);
    expect(usage.is_byok).toBe(false);
    expect((await spent()) - before).toBeCloseTo(usage.cost, 9);
    before = await spent();
    const streamed = await readStream(await client.chat.completions.create(ask('ant/claude-sonnet-4-5', { max_tokens: 200, stream: true, usage: { include: true } })));
    expect(streamed.usage?.cost).toBeGreaterThan(0);
    expect((await spent()) - before).toBeCloseTo(streamed.usage!.cost, 9);
    expect(claude.rejections).toEqual([]);
    const plain = await client.chat.completions.create(ask('ant/claude-sonnet-4-5', { max_tokens: 200 }));
    expect(plain.usage).not.toHaveProperty('cost');
  });

  it("GET /v1/generation?id=<X-Request-ID>: the request's stats in OpenRouter's shape, for the key that made it", async () => {
    const { data, response } = await client.chat.completions.create(ask('up/m', { usage: { include: true }, user: 'whole' })).withResponse();
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^req_[A-Za-z0-9]{16,}$/);
    // The openai SDK's own request to a path it has no method for, as apps moved from OpenRouter write it.
    const stats = (await client.get('/generation', { query: { id } })) as { data: Json };
    expect(stats.data).toMatchObject({
      id,
      model: 'up/m',
      provider_name: 'up',
      tokens_prompt: 10,
      tokens_completion: 2,
      native_tokens_prompt: 10,
      native_tokens_completion: 2,
      total_cost: (data.usage as unknown as Json).cost,
      usage: CHARGED_USD,
      is_byok: false,
      cancelled: false,
      api_type: 'completions',
      usage_credits: 12,
      upstream_id: 'chatcmpl-whole',
      finish_reason: 'stop',
      streamed: false,
    });
    expect(Date.parse(stats.data.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(stats.data.latency).toBeGreaterThanOrEqual(0);
    expect(stats.data.latency).toBeLessThan(60_000);
    expect(Number.isInteger(stats.data.latency)).toBe(true);
    expect(stats.data.generation_time).toBeNull();

    // The answer's own id (what OpenRouter apps pass: `completion.id`) finds the same request.
    expect(data.id).toBe('chatcmpl-whole');
    const byAnswerId = (await client.get('/generation', { query: { id: data.id } })) as { data: Json };
    expect(byAnswerId.data).toEqual(stats.data);

    // Another key of the same account: not its request, by either id.
    const other = JSON.parse(String((await runCli(['--config', configFile, '--data-dir', dataDir, 'keys', 'create', '--json'])).stdout)) as { key: string };
    for (const asked of [id, data.id]) {
      const foreign = await fetch(`${gw.url}/v1/generation?id=${asked}`, { headers: { authorization: `Bearer ${other.key}` } });
      expect(foreign.status).toBe(404);
      expect(((await foreign.json()) as Json).error).toMatchObject({ code: 'not_found', param: 'id' });
    }
    const unknown = await client.get('/generation', { query: { id: 'req_nothing' } }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('X-Request-ID');
    const missing = await fetch(`${gw.url}/v1/generation`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as Json).error).toMatchObject({ code: 'bad_request', param: 'id' });
    const anonymous = await fetch(`${gw.url}/v1/generation?id=${id}`);
    expect(anonymous.status).toBe(401);
    // OpenRouter's own path (a client moved with only the host changed) names the route to use.
    const openRouterPath = await fetch(`${gw.url}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(openRouterPath.status).toBe(404);
    expect(((await openRouterPath.json()) as Json).error.details).toMatchObject({ did_you_mean: '/v1/generation' });
  });

  it('GET /v1/generation by a streamed answer\'s own id: streamed true, its latency; a converted stream says its finish reason', async () => {
    let answerId = '';
    const stream = (await client.chat.completions.create(ask('up/m', { stream: true, stream_options: { include_usage: true }, user: 'streamed' }))) as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>;
    for await (const chunk of stream) answerId = chunk.id;
    expect(answerId).toBe('chatcmpl-streamed');
    const stats = (await client.get('/generation', { query: { id: answerId } })) as { data: Json };
    expect(stats.data).toMatchObject({ model: 'up/m', upstream_id: answerId, streamed: true, tokens_prompt: 10, tokens_completion: 2, usage: CHARGED_USD });
    expect(stats.data.id).toMatch(/^req_/);
    expect(stats.data.latency).toBeGreaterThanOrEqual(0);
    // A passthrough stream's finish reason, read from its last records (only its usage chunk is parsed while it runs).
    expect(stats.data).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'stop' });

    // Converted from Claude: the answer's id is the one the client saw in its chunks.
    let convertedId = '';
    const converted = (await client.chat.completions.create(ask('ant/claude-sonnet-4-5', { max_tokens: 200, stream: true }))) as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>;
    for await (const chunk of converted) convertedId ||= chunk.id;
    expect(convertedId).not.toBe('');
    const convertedStats = (await client.get('/generation', { query: { id: convertedId } })) as { data: Json };
    expect(convertedStats.data).toMatchObject({ model: 'ant/claude-sonnet-4-5', upstream_id: convertedId, streamed: true, finish_reason: 'stop' });

    // A Responses answer the gateway stored is named by its own `resp_…` id, whole or streamed: that id finds it.
    const response = await client.responses.create({ model: 'up/m', input: 'hello', user: 'responses' } as never);
    expect(response.id).toMatch(/^resp_/);
    const responseStats = (await client.get('/generation', { query: { id: response.id } })) as { data: Json };
    expect(responseStats.data).toMatchObject({ model: 'up/m', upstream_id: response.id, endpoint: '/v1/responses', streamed: false, finish_reason: 'stop' });
    let streamedResponseId = '';
    const events = (await client.responses.create({ model: 'up/m', input: 'hello', stream: true } as never)) as unknown as AsyncIterable<{ type: string; response?: { id: string } }>;
    for await (const event of events) if (event.type === 'response.completed') streamedResponseId = event.response!.id;
    expect(streamedResponseId).toMatch(/^resp_/);
    const streamedResponseStats = (await client.get('/generation', { query: { id: streamedResponseId } })) as { data: Json };
    expect(streamedResponseStats.data).toMatchObject({ upstream_id: streamedResponseId, endpoint: '/v1/responses', streamed: true, finish_reason: 'stop' });
  });

  it("GET /v1/generation of a Messages passthrough, whole and streamed: OpenRouter's normalized finish_reason, Anthropic's own as native_finish_reason", async () => {
    const headers = { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
    const body = { model: 'ant/claude-sonnet-4-5', max_tokens: 200, messages: [{ role: 'user', content: 'hello' }] };
    const whole = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(whole.status).toBe(200);
    const message = (await whole.json()) as Json;
    expect(message.stop_reason).toBe('end_turn');
    const wholeStats = (await client.get('/generation', { query: { id: message.id } })) as { data: Json };
    expect(wholeStats.data).toMatchObject({ upstream_id: message.id, endpoint: '/v1/messages', streamed: false, finish_reason: 'stop', native_finish_reason: 'end_turn' });

    const streamed = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ ...body, stream: true }) });
    const text = await streamed.text();
    expect(text).toContain('"stop_reason":"end_turn"');
    const streamedId = /"message":\{"id":"([^"]+)"/.exec(text)![1];
    const streamedStats = (await client.get('/generation', { query: { id: streamedId } })) as { data: Json };
    expect(streamedStats.data).toMatchObject({ upstream_id: streamedId, endpoint: '/v1/messages', streamed: true, finish_reason: 'stop', native_finish_reason: 'end_turn' });
  });
});
