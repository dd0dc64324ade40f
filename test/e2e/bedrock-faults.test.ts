/**
 * Issue 23 (Bedrock), the rest of Done-when: prices from the bundled catalog (inference-profile
 * ids priced as their base model) and cache tokens billed; a throttle retried, then the chain
 * falls back; errors in each client's shape; SigV4 refused for a wrong region and a skewed
 * clock; the Bedrock API-key path; a corrupt frame mid-stream; a batch line; metrics labels.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { USAGE } from '../helpers/fake-bedrock-replies.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';
import { runChatBatch } from '../helpers/chat-batch.ts';
import { parsePrometheus, valueOf } from '../helpers/prometheus.ts';

type Json = Record<string, any>;
const CLAUDE_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const LLAMA_ID = 'meta.llama3-3-70b-instruct-v1:0';
const CREDENTIALS = { accessKeyId: 'AKIAFAKEBEDROCK', secretAccessKey: 'fake/secret+key' };
const API_KEY = 'ABSKZmFrZWJlZHJvY2thcGlrZXk=';

describe('bedrock plugin: prices, faults and errors (real CLI)', () => {
  let fake: FakeBedrock;
  let skewed: FakeBedrock;
  let backup: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    fake = await startFakeBedrock({ region: 'us-east-1', credentials: [CREDENTIALS], apiKeys: [API_KEY], models: [CLAUDE_ID, LLAMA_ID] });
    skewed = await startFakeBedrock({ region: 'us-east-1', credentials: [CREDENTIALS], clockSkewMs: 10 * 60_000 });
    backup = await startStrictFake({ format: 'messages', models: { 'claude-backup': { maxOutput: 8192, reasoning: true } }, finalText: 'from the backup' });
    const models = [CLAUDE_ID, LLAMA_ID, 'meta.llama-missing-v1:0'];
    gw = await spawnGateway({
      env: { AWS_BEARER_TOKEN_BEDROCK: API_KEY, AWS_REGION: 'us-east-1', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_CONFIG_FILE: '/nonexistent' },
      config: {
        providers: {
          bedrock: { plugin: 'bedrock', baseURL: fake.url, region: 'us-east-1', ...CREDENTIALS, models },
          // The API key from AWS_BEARER_TOKEN_BEDROCK, the region from AWS_REGION.
          'bedrock-key': { plugin: 'bedrock', baseURL: fake.url, models: [LLAMA_ID] },
          'bedrock-west': { plugin: 'bedrock', baseURL: fake.url, region: 'us-west-2', ...CREDENTIALS, models: [LLAMA_ID] },
          'bedrock-skewed': { plugin: 'bedrock', baseURL: skewed.url, region: 'us-east-1', ...CREDENTIALS, models: [LLAMA_ID] },
          backup: { plugin: 'anthropic', baseURL: backup.url, apiKey: 'sk-backup', models: ['claude-backup'] },
        },
        routing: { models: { [`bedrock/${CLAUDE_ID}`]: { fallbacks: ['backup/claude-backup'] } }, retry: { attempts: 2, baseMs: 10, maxMs: 50 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
    await skewed?.close();
    await backup?.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.rejections.length = 0;
    fake.faults.throttle = 0;
  });

  const used = async () => -((await (await fetch(`${gw.url}/v1/credits`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as Json).data.credits.balance as number;
  const billed = async (before: number) => until('the request billed', async () => ((await used()) > before ? (await used()) - before : undefined));

  it("prices Bedrock ids from the bundled catalog (an inference profile as its base model) and bills cache tokens at them", async () => {
    const models = ((await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as { data: Json[] }).data;
    const claude = models.find((m) => m.id === `bedrock/${CLAUDE_ID}`)!;
    const llama = models.find((m) => m.id === `bedrock/${LLAMA_ID}`)!;
    expect(Number(claude.pricing.prompt)).toBeGreaterThan(0);
    expect(Number(claude.pricing.input_cache_read)).toBeGreaterThan(0);
    expect(Number(llama.pricing.completion)).toBeGreaterThan(0);
    expect(gw.stdout() + gw.stderr()).toMatch(/meta\.llama-missing-v1:0/); // the start-up warning names the unpriced id

    const before = await used();
    const message = await anthropic.messages.create({ model: `bedrock/${CLAUDE_ID}`, max_tokens: 50, system: [{ type: 'text', text: 'long and stable', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'cache me' }] });
    expect(message.usage).toMatchObject({ input_tokens: USAGE.input, output_tokens: USAGE.output, cache_read_input_tokens: USAGE.cacheRead, cache_creation_input_tokens: USAGE.cacheWrite });
    const p = (k: string) => Number(claude.pricing[k]);
    const usd = USAGE.input * p('prompt') + USAGE.output * p('completion') + USAGE.cacheRead * p('input_cache_read') + USAGE.cacheWrite * p('input_cache_write');
    expect(await billed(before)).toBeCloseTo(usd * 1000, 6);

    // Converse usage too: cacheReadInputTokens/cacheWriteInputTokens become the client's cached tokens.
    const converse = await anthropic.messages.create({ model: `bedrock/${LLAMA_ID}`, max_tokens: 50, system: [{ type: 'text', text: 'long and stable', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'cache me' }] });
    expect(fake.requests.at(-1)!.json!.system).toEqual([{ text: 'long and stable' }, { cachePoint: { type: 'default' } }]);
    expect(converse.usage).toMatchObject({ input_tokens: USAGE.input, output_tokens: USAGE.output, cache_read_input_tokens: USAGE.cacheRead, cache_creation_input_tokens: USAGE.cacheWrite });
  });

  it('a ThrottlingException is retried, then the chain falls back to another provider', async () => {
    fake.faults.throttle = 10;
    const { data, response } = await openai.chat.completions.create({ model: `bedrock/${CLAUDE_ID}`, messages: [{ role: 'user', content: 'throttled' }] }).withResponse();
    expect(data.choices[0].message.content).toBe('from the backup');
    expect(fake.requests.map((r) => r.action)).toEqual(['invoke', 'invoke']);
    expect(response.headers.get('x-fallback-used')).toBe('true');
    expect(response.headers.get('x-fallback-reason')).toBe('rate_limit_exceeded');
  });

  it("errors reach each client in its own shape", async () => {
    const chat = await openai.chat.completions.create({ model: 'bedrock/meta.llama-missing-v1:0', messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as Error).message).toContain('The provided model identifier is invalid.');
    const messages = await anthropic.messages.create({ model: 'bedrock/meta.llama-missing-v1:0', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (e: unknown) => e);
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect(((messages as InstanceType<typeof Anthropic.BadRequestError>).error as Json).error.type).toBe('invalid_request_error');
    // A signature for the wrong region or from a skewed clock is the gateway's credentials' fault: 502, never the client's.
    for (const model of ['bedrock-west', 'bedrock-skewed']) {
      const refused = await openai.chat.completions.create({ model: `${model}/${LLAMA_ID}`, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    }
    expect(fake.rejections.some((r) => r.startsWith('InvalidSignatureException: Credential should be scoped to a valid region'))).toBe(true);
    expect(skewed.rejections.some((r) => r.startsWith('InvalidSignatureException: Signature expired'))).toBe(true);
  });

  it('authenticates with a Bedrock API key from AWS_BEARER_TOKEN_BEDROCK', async () => {
    const chat = await openai.chat.completions.create({ model: `bedrock-key/${LLAMA_ID}`, messages: [{ role: 'user', content: 'bearer' }] });
    expect(chat.choices[0].message.content).toBe('Converse heard: bearer');
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(fake.requests[0].headers['x-amz-date']).toBeUndefined();
  });

  it('a corrupt frame mid-stream ends the stream with an error the client reads, on both paths', async () => {
    fake.faults.badCrcAt = 3;
    fake.faults.splitEvery = 3;
    const chat = await openai.chat.completions.create({ model: `bedrock/${LLAMA_ID}`, stream: true, messages: [{ role: 'user', content: 'one two three four' }] });
    const failed = await (async () => {
      for await (const _chunk of chat) {
        // read until the error
      }
    })().then(() => undefined, (e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(String((failed as Error).message)).toMatch(/corrupt event-stream frame|checksum/);
    fake.faults.badCrcAt = 4;
    const stream = anthropic.messages.stream({ model: `bedrock/${CLAUDE_ID}`, max_tokens: 50, messages: [{ role: 'user', content: 'one two three four' }] });
    const error = await stream.finalMessage().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/corrupt event-stream frame|checksum/);
    fake.faults.splitEvery = 5;
  });

  it('an exception frame mid-stream (modelStreamErrorException) reaches the client as a stream error', async () => {
    fake.faults.exceptionAfter = { index: 3, name: 'modelStreamErrorException', message: 'The model stream failed.' };
    const stream = anthropic.messages.stream({ model: `bedrock/${LLAMA_ID}`, max_tokens: 50, messages: [{ role: 'user', content: 'one two three four' }] });
    const error = await stream.finalMessage().then(() => undefined, (e: unknown) => e);
    expect(String((error as Error).message)).toContain('The model stream failed.');
  });

  it('a batch line routed to bedrock (emulated)', async () => {
    expect(await runChatBatch(openai, [['br-1', `bedrock/${LLAMA_ID}`, 'one'], ['br-2', `bedrock/${CLAUDE_ID}`, 'two']])).toEqual([
      ['br-1', 200, 'Converse heard: one'],
      ['br-2', 200, 'Bedrock Claude heard: two'],
    ]);
  });

  it('metrics label the provider bedrock', async () => {
    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());
    expect(valueOf(metrics, 'gateway_upstream_attempts_total', { provider: 'bedrock', model: LLAMA_ID, outcome: 'ok' })).toBeGreaterThan(0);
    expect(valueOf(metrics, 'gateway_upstream_attempts_total', { provider: 'bedrock-key', model: LLAMA_ID, outcome: 'ok' })).toBeGreaterThan(0);
    expect(valueOf(metrics, 'gateway_upstream_attempts_total', { provider: 'bedrock', model: CLAUDE_ID, outcome: 'fallback' })).toBe(1);
  });
});
