/**
 * Scoped keys and spend limits through the real CLI and server, with the official clients:
 * keys made with `gateway keys create --models/--endpoints/--limit`, requests from `openai`,
 * `@anthropic-ai/sdk` and `@google/genai`, an OpenAI-compatible fake upstream as the "other provider", and the
 * monthly reset seen by restarting the gateway with its clock moved into next month.
 */
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

interface KeyData {
  limit: number | null;
  limit_remaining: number | null;
  limit_reset: string | null;
  usage: number;
  limit_credits: { limit: number; remaining: number; used: number } | null;
}

const DAY = 86_400_000;

describe('scoped keys and spend limits (official clients, real CLI and server)', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway | undefined;
  let configFile: string;
  let dataDir: string;

  const cli = async (args: string[], env?: Record<string, string>) => {
    const result = await runCli(['--config', configFile, '--data-dir', dataDir, ...args], { env });
    return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
  };
  const newKey = async (...flags: string[]) => {
    const created = await cli(['keys', 'create', '--account', 'team@example.com', '--json', ...flags]);
    expect(created.err).toBe('');
    return JSON.parse(created.out) as { id: string; key: string };
  };
  const openai = (key: string) => new OpenAI({ baseURL: `${gw!.url}/v1`, apiKey: key, maxRetries: 0 });
  const keyData = async (key: string): Promise<KeyData> => {
    const res = await fetch(`${gw!.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: KeyData }).data;
  };
  const failure = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    return error as { status: number; error?: { code?: string; message?: string; details?: Record<string, unknown> } };
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => ({
      json: { id: 'chatcmpl-up', object: 'chat.completion', created: 1, model: 'gpt-up', choices: [{ index: 0, message: { role: 'assistant', content: 'from up' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    }));
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, {
      providers: {
        // echo: only output priced, 1 credit a token, so max_tokens 1 reserves and costs exactly 1 credit.
        mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }, 'image', 'tts', 'embed'] },
        up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'upstream-secret', models: ['gpt-up'] },
      },
    });
    expect((await cli(['accounts', 'create', '--email', 'team@example.com', '--tier', 'enterprise', '--credits', '100000'])).code).toBe(0);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream.close();
  });

  it('a key scoped to mock/* gets 403 authorization_error for another provider\'s model; the upstream is never called', async () => {
    const { key } = await newKey('--models', 'mock/*');
    const client = openai(key);
    const ok = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });
    expect(ok.choices[0].message.role).toBe('assistant');
    const before = upstream.requests.length;
    const error = await failure(client.chat.completions.create({ model: 'up/gpt-up', messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.status).toBe(403);
    expect(error.error).toMatchObject({ code: 'authorization_error', details: { model: 'up/gpt-up', allowed_models: ['mock/*'] } });
    expect(error.error?.message).toContain("may not use the model 'up/gpt-up'");
    expect(upstream.requests.length).toBe(before);
    // Counting tokens for a model outside the scope gets the same refusal (Anthropic's error shape).
    const count = await fetch(`${gw!.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'up/gpt-up', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(count.status).toBe(403);
    expect(await count.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    // An unscoped key of the same account reaches it.
    const { key: open } = await newKey();
    expect((await openai(open).chat.completions.create({ model: 'up/gpt-up', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content).toBe('from up');
  });

  it('a key without images gets 403 on images.generate (and on messages with the Anthropic client)', async () => {
    const { key } = await newKey('--endpoints', 'chat,responses');
    const error = await failure(openai(key).images.generate({ model: 'mock/image', prompt: 'a lighthouse' }));
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.error).toMatchObject({ code: 'authorization_error', details: { endpoint: 'images', allowed_endpoints: ['chat', 'responses'] } });
    const anthropic = new Anthropic({ baseURL: gw!.url, apiKey: key, maxRetries: 0 });
    const refused = await failure(anthropic.messages.create({ model: 'mock/echo', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }));
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(refused.status).toBe(403);
    // The same key with images added (keys set) generates.
    const keys = JSON.parse((await cli(['keys', 'ls', '--json'])).out) as Array<{ id: string; endpoints: string[] | null }>;
    const id = keys.find((k) => k.endpoints?.join() === 'chat,responses')!.id;
    expect((await cli(['keys', 'set', id, '--endpoints', 'chat,responses,images'])).code).toBe(0);
    const image = await openai(key).images.generate({ model: 'mock/image', prompt: 'a lighthouse', response_format: 'b64_json' });
    expect(image.data?.[0].b64_json).toBeTruthy();
  });

  it("Gemini's own embedding and image methods take a key scoped to gemini or to embeddings / images; a key with neither gets 403 naming the URL and both groups", { timeout: 60_000 }, async () => {
    const keys: Record<string, string> = {};
    for (const group of ['gemini', 'embeddings', 'images', 'chat']) keys[group] = (await newKey('--endpoints', group)).key;
    // AI Studio: models.embedContent asks :batchEmbedContents. Vertex: generateImages asks Imagen's :predict.
    const studio = (group: string) => new GoogleGenAI({ apiKey: keys[group], httpOptions: { baseUrl: gw!.url, timeout: 15_000 } });
    const vertex = (group: string) => new GoogleGenAI({ vertexai: true, apiKey: keys[group], project: 'p', location: 'us-central1', httpOptions: { baseUrl: gw!.url, timeout: 15_000 } });
    const embed = (group: string) => studio(group).models.embedContent({ model: 'mock/embed', contents: ['first text', 'second text'], config: { outputDimensionality: 8 } });
    const draw = (group: string) => vertex(group).models.generateImages({ model: 'mock/image', prompt: 'A red cube', config: { numberOfImages: 1 } });
    for (const group of ['gemini', 'embeddings']) expect((await embed(group)).embeddings?.map((e) => e.values?.length)).toEqual([8, 8]);
    for (const group of ['gemini', 'images']) expect((await draw(group)).generatedImages?.[0].image?.mimeType).toBe('image/png');
    const refused = async (call: Promise<unknown>, url: string, groups: string) => {
      const error = await call.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(403);
      const body = JSON.parse((error as ApiError).message) as { error: { status: string; message: string } };
      expect(body.error.status).toBe('PERMISSION_DENIED');
      expect(body.error.message).toContain(`may not call the ${groups} endpoints (${url}, which any one of these groups allows)`);
    };
    for (const group of ['images', 'chat']) await refused(embed(group), '/v1beta/models/mock/embed:batchEmbedContents', 'gemini or embeddings');
    // Authentication lets the embeddings key through Vertex's :predict (both faces read it); admission, which knows the model makes images, does not.
    for (const group of ['embeddings', 'chat']) await refused(draw(group), '/v1beta1/projects/p/locations/us-central1/publishers/mock/models/image:predict', group === 'chat' ? 'gemini, embeddings or images' : 'gemini or images');
    // The gemini key is still no images key on OpenAI's route.
    const error = await failure(openai(keys.gemini).images.generate({ model: 'mock/image', prompt: 'a lighthouse' }));
    expect(error.error).toMatchObject({ code: 'authorization_error', details: { endpoint: 'images', allowed_endpoints: ['gemini'] } });
  });

  it('a limit of 10 credits holds against 50 concurrent priced requests (then 402), and the monthly reset restores it', { timeout: 120_000 }, async () => {
    const { id, key } = await newKey('--limit', '10', '--limit-reset', 'monthly', '--name', 'budgeted');
    const client = openai(key);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 1 })),
    );
    const passed = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(passed).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(OpenAI.APIError);
      expect((r.reason as { status: number }).status).toBe(402);
    }
    const first = (refused[0].reason as { error: { code: string; message: string; details: Record<string, unknown> } }).error;
    expect(first).toMatchObject({ code: 'insufficient_balance', details: { scope: 'key_limit', key_id: id, limit: 10, limit_reset: 'monthly', unit: 'credits' } });
    expect(first.message).toContain("This API key's spend limit of 10 credits (monthly)");

    // Settlement runs after the answer: wait until the key's spend shows all ten.
    let data = await keyData(key);
    for (let i = 0; i < 50 && data.limit_credits!.used < 10; i++) {
      await new Promise((r) => setTimeout(r, 50));
      data = await keyData(key);
    }
    expect(data.limit).toBe(0.01); // USD, like OpenRouter's; 10 credits
    expect(data.limit_reset).toBe('monthly');
    expect(data.limit_remaining).toBe(0);
    expect(data.limit_credits).toMatchObject({ limit: 10, remaining: 0, used: 10 });
    expect(data.usage).toBe(0.01);
    const listed = JSON.parse((await cli(['keys', 'ls', '--json'])).out) as Array<{ id: string; limit_used: number; last_used_at: number | null }>;
    expect(listed.find((k) => k.id === id)).toMatchObject({ limit_used: 10, last_used_at: expect.any(Number) });
    await expect(client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 1 })).rejects.toMatchObject({ status: 402 });

    // Next month (the gateway's clock moved forward by GATEWAY_CLOCK_OFFSET_MS): the limit starts over.
    await gw!.stop();
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) + DAY / 2;
    gw = await spawnGateway({ configFile, dataDir, env: { GATEWAY_CLOCK_OFFSET_MS: String(nextMonth - Date.now()) } });
    const reset = await keyData(key);
    expect(reset.limit_remaining).toBe(0.01);
    expect(reset.limit_credits).toMatchObject({ remaining: 10, used: 0 });
    expect(reset.usage).toBe(0.01); // all-time usage stays
    const again = await openai(key).chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 1 });
    expect(again.choices).toHaveLength(1);
  });

  it('the limit holds for images and audio too', { timeout: 60_000 }, async () => {
    // mock/image: 0.01 USD = 10 credits an image; mock/tts: 0.015 credits a character.
    const { key } = await newKey('--limit', '25');
    const client = openai(key);
    const images = await Promise.allSettled(Array.from({ length: 6 }, () => client.images.generate({ model: 'mock/image', prompt: 'a cat', response_format: 'b64_json' })));
    expect(images.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = images.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(4);
    expect((refused[0].reason as { status: number; error: { details: { scope: string } } })).toMatchObject({ status: 402, error: { details: { scope: 'key_limit' } } });

    const { key: voice } = await newKey('--limit', '5');
    const speaker = openai(voice);
    const speech = await Promise.allSettled(
      Array.from({ length: 8 }, () => speaker.audio.speech.create({ model: 'mock/tts', voice: 'alloy', input: 'x'.repeat(100), response_format: 'wav' }).then((r) => r.arrayBuffer())),
    );
    // 100 characters = 1.5 credits: three fit in 5.
    expect(speech.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    let data = await keyData(voice);
    for (let i = 0; i < 50 && data.limit_credits!.used < 4.5; i++) {
      await new Promise((r) => setTimeout(r, 50));
      data = await keyData(voice);
    }
    expect(data.limit_credits).toMatchObject({ used: 4.5, remaining: 0.5 });
  });
});
