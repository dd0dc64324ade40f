/**
 * Claude on Vertex AI through the `google` plugin (issue 23 part 3), real CLI and official
 * clients against the strict Vertex fake, with the fake token endpoint in the loop: the
 * Anthropic SDK passes through (`:rawPredict` / `:streamRawPredict`, `anthropic_version` in the
 * body, no `model`), the OpenAI SDK is converted; thinking signatures come back byte-exact over
 * a tool loop with parallel calls; images; usage and cache reads billed at the catalog's prices;
 * a 429 RESOURCE_EXHAUSTED retried, then a fallback to another provider; errors in each
 * client's shape; one token minted for all of it, and a new one minted before the old expires.
 */
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceAccountKey, startFakeTokenEndpoint, type FakeTokenEndpoint, type ServiceAccountKey } from '../helpers/fake-google-token.ts';
import { googleError } from '../helpers/fake-gemini.ts';
import { startVertexFake, type VertexFake } from '../helpers/fake-vertex.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const MODEL = 'claude-sonnet-4-5@20250929';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WEATHER_TOOL = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

async function setUpVertex(dir: string, expiresIn?: number): Promise<{ tokens: FakeTokenEndpoint; key: ServiceAccountKey; vertex: VertexFake }> {
  let key!: ServiceAccountKey;
  const tokens = await startFakeTokenEndpoint(() => ({ publicKey: key.publicKey, clientEmail: key.json.client_email }), { expiresIn });
  key = createServiceAccountKey(dir, tokens.tokenUri, 'gw-vertex');
  const vertex = await startVertexFake({
    tokens,
    project: 'gw-vertex',
    location: 'us-east5',
    claude: {
      models: { [MODEL]: { maxOutput: 64_000, reasoning: true } },
      // Both cities at once: a parallel round.
      pick: (names) => (names.includes('get_weather') ? [{ name: 'get_weather', input: { city: 'Paris' } }, { name: 'get_weather', input: { city: 'Oslo' } }] : undefined),
      finalText: 'Paris is sunny, Oslo is cold.',
      cachedTokens: 100,
    },
  });
  return { tokens, key, vertex };
}

describe('Claude on Vertex AI (google plugin, api: vertex)', () => {
  let tokens: FakeTokenEndpoint;
  let key: ServiceAccountKey;
  let vertex: VertexFake;
  let backup: StrictFake;
  let gw: SpawnedGateway;
  let apiKey: string;
  let configFile: string;
  let dataDir: string;

  const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey, maxRetries: 0, timeout: 15_000 });
  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
  const usedCredits = async (): Promise<number> => {
    const res = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${apiKey}` } });
    return ((await res.json()) as { data: { limit_credits: { used: number } } }).data.limit_credits.used;
  };
  const claudeCalls = () => vertex.requests.filter((r) => r.path.includes('/publishers/anthropic/'));

  beforeAll(async () => {
    const dir = tempDir();
    ({ tokens, key, vertex } = await setUpVertex(dir));
    backup = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64_000, reasoning: true } }, finalText: 'From the backup.' });
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, {
      providers: {
        vertex: { plugin: 'google', api: 'vertex', location: 'us-east5', credentials: key.file, baseURL: vertex.url, models: [MODEL] },
        backup: { plugin: 'anthropic', baseURL: backup.url, apiKey: 'sk-ant-backup', models: ['claude-sonnet-4-5'] },
      },
      routing: { retry: { attempts: 2, baseMs: 10 }, models: { [`vertex/${MODEL}`]: { fallbacks: ['backup/claude-sonnet-4-5'] } } },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'vertex@example.com', '--tier', 'enterprise', '--credits', '100000'])).exitCode).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'vertex@example.com', '--json', '--limit', '1000']);
    apiKey = (JSON.parse(String(created.stdout)) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir, env: { GOOGLE_APPLICATION_CREDENTIALS: '' } });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([vertex?.close(), tokens?.close(), backup?.close()]);
  });
  beforeEach(() => {
    vertex.requests.length = 0;
    backup.requests.length = 0;
  });

  it('Anthropic SDK, passthrough: rawPredict with the Vertex body and a bearer token; streamed through streamRawPredict', async () => {
    const message = await anthropic().messages.create({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Paris is sunny, Oslo is cold.' }]);
    expect(message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 20 });
    const stream = anthropic().messages.stream({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });
    expect(await stream.finalText()).toBe('Paris is sunny, Oslo is cold.');
    const [plain, streamed] = claudeCalls();
    expect(plain.path).toBe(`/v1/projects/gw-vertex/locations/us-east5/publishers/anthropic/models/${MODEL}:rawPredict`);
    expect(streamed.path).toBe(`/v1/projects/gw-vertex/locations/us-east5/publishers/anthropic/models/${MODEL}:streamRawPredict`);
    expect(plain.body).toBe('{"max_tokens":1024,"messages":[{"role":"user","content":"Hello"}],"anthropic_version":"vertex-2023-10-16"}');
    expect(streamed.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(streamed.json).not.toHaveProperty('model');
    expect(plain.headers.authorization).toBe(`Bearer ${tokens.issued[0]}`);
    expect(plain.headers['x-api-key']).toBeUndefined();
    expect(vertex.rejections).toEqual([]);
  });

  it('Anthropic SDK: thinking and two parallel tool calls, the signature sent back byte-exact, streamed; images in', async () => {
    const client = anthropic();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: 'Weather in Paris and Oslo?' }] }];
    const params = { model: MODEL, max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, tools: [WEATHER_TOOL] };
    const first = await client.messages.stream({ ...params, messages }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const thinking = first.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.type).toBe('thinking');
    expect(vertex.issued.has(thinking.signature)).toBe(true);
    const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => u.input)).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: `${(u.input as { city: string }).city}: fine` })) });
    const second = await client.messages.stream({ ...params, messages }).finalMessage();
    expect(second.content.at(-1)).toMatchObject({ type: 'text', text: 'Paris is sunny, Oslo is cold.' });
    expect(vertex.rejections).toEqual([]);
    const sent = claudeCalls()[1].body;
    expect(sent).toContain(JSON.stringify(thinking.signature));
    expect((claudeCalls()[0].json as Json).messages[0].content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
  });

  it('OpenAI SDK, converted: reasoning and parallel tool calls over two turns (the signature survives the Chat client), an image in', async () => {
    const client = openai();
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: WEATHER_TOOL.input_schema } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'text', text: 'Weather in Paris and Oslo?' }] }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools, reasoning_effort: 'medium' });
    const calls = first.choices[0].message.tool_calls ?? [];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(calls.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments) : undefined))).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
    messages.push(first.choices[0].message as OpenAI.ChatCompletionMessageParam);
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'fine' });
    const stream = await client.chat.completions.create({ model: MODEL, messages, tools, reasoning_effort: 'medium', stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Paris is sunny, Oslo is cold.');
    expect(usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 100 } });
    expect(vertex.rejections).toEqual([]);
    const [one, two] = claudeCalls();
    expect(one.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', thinking: { type: 'enabled' } });
    expect((one.json as Json).messages[0].content[0]).toMatchObject({ type: 'image', source: { type: 'base64', data: PNG } });
    const replayed = (two.json as Json).messages[1].content[0];
    expect(replayed.type).toBe('thinking');
    expect(vertex.issued.has(replayed.signature)).toBe(true);
  });

  it('bills usage and cache reads at the catalog prices of claude-sonnet-4-5 (input 3, cache read 0.3, output 15 USD/M)', async () => {
    const before = await usedCredits();
    await anthropic().messages.create({ model: MODEL, max_tokens: 256, messages: [{ role: 'user', content: 'Bill me' }] });
    // 20 input × 3 + 100 cache reads × 0.3 + 20 output × 15 = 390 USD per million = 0.39 credits (milli-dollars).
    await expect.poll(async () => (await usedCredits()) - before, { timeout: 5000 }).toBeCloseTo(0.39, 6);
  });

  it('counts tokens with Vertex’s counter (count-tokens:rawPredict, the model in the body)', async () => {
    const counted = await anthropic().messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'Count me' }] });
    const call = claudeCalls()[0];
    expect(call.path).toBe('/v1/projects/gw-vertex/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict');
    expect(call.json).toMatchObject({ model: MODEL, anthropic_version: 'vertex-2023-10-16' });
    expect(counted.input_tokens).toBe(3 + Math.ceil(JSON.stringify((call.json as Json).messages).length / 4));
  });

  it('a 429 RESOURCE_EXHAUSTED is retried, then the request falls back to the other provider', async () => {
    vertex.failNext(googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.'), 2);
    const { data, response } = await anthropic().messages.create({ model: `vertex/${MODEL}`, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'From the backup.' }]);
    expect(response.headers.get('x-fallback-used')).toBe('true');
    expect(response.headers.get('x-fallback-reason')).toBe('rate_limit_exceeded');
    expect(claudeCalls()).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
    vertex.failNext(googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.'), 2);
    const converted = await openai().chat.completions.create({ model: `vertex/${MODEL}`, messages: [{ role: 'user', content: 'Hi' }] });
    expect(converted.choices[0].message.content).toBe('From the backup.');
  });

  it("errors arrive in each client's shape: a 429 with no fallback named, an unknown model's 404", async () => {
    vertex.failNext(googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.'));
    const limited = await anthropic().messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(claudeCalls()).toHaveLength(1);
    expect((limited as InstanceType<typeof Anthropic.RateLimitError>).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
    vertex.failNext(googleError(404, 'NOT_FOUND', 'Publisher Model was not found or your project does not have access to it.'));
    const missing = await openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ code: 'model_not_found' });
  });

  it('minted one access token for everything above (cached), the assertion verified by the token endpoint', () => {
    expect(tokens.issued).toHaveLength(1);
    expect(tokens.refusals).toEqual([]);
    expect(vertex.unauthenticated).toBe(0);
  });
});

describe('Claude on Vertex AI: the token is refreshed before it expires', () => {
  it('mints a new token once the cached one is within five minutes of expiry, while the old one is still valid', async () => {
    const dir = tempDir();
    // Tokens live 301 s: five minutes before expiry is one second after minting.
    const { tokens, key, vertex } = await setUpVertex(dir, 301);
    const gw = await spawnGateway({ config: { providers: { vertex: { plugin: 'google', api: 'vertex', location: 'us-east5', project: 'gw-vertex', credentials: JSON.stringify(key.json), baseURL: vertex.url, models: [MODEL] } } } });
    try {
      const client = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
      const ask = () => client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
      await ask();
      await ask();
      expect(tokens.issued).toHaveLength(1);
      const first = tokens.issued[0];
      await expect.poll(async () => (await ask(), tokens.issued.length), { timeout: 8000, interval: 200 }).toBe(2);
      expect(tokens.accepts(first)).toBe(true);
      expect(vertex.requests.at(-1)!.headers.authorization).toBe(`Bearer ${tokens.issued[1]}`);
      expect(vertex.unauthenticated).toBe(0);
    } finally {
      await gw.stop();
      await Promise.all([vertex.close(), tokens.close()]);
    }
  }, 30_000);
});
