import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startFakeMediaUpstream, type FakeMediaUpstream, type MediaRequest } from '../media/fake-media-upstream.ts';
import { checkPng } from '../media/png-check.ts';

/** An OpenAI Chat Completions answer with usage, cache reads included (as OpenAI reports them). */
function chatReply(request: MediaRequest) {
  if (request.path !== '/v1/chat/completions') return undefined;
  const body = {
    id: 'chatcmpl-catalog',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: String(request.json?.model),
    choices: [{ index: 0, message: { role: 'assistant', content: 'priced answer' }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 400 } },
  };
  return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** What a user types: plain ids, one price override, one model nobody knows. */
function config(upstream: FakeMediaUpstream, billing: Record<string, unknown> = {}) {
  return {
    providers: {
      oa: {
        plugin: 'openai',
        baseURL: `${upstream.url}/v1`,
        apiKey: 'upstream-secret',
        models: ['gpt-4o-mini', 'gpt-image-1', 'dall-e-3', 'tts-1', 'whisper-1', { id: 'gpt-4.1', pricing: { input: 1000, output: 2000 } }, 'my-local-model'],
      },
    },
    billing,
  };
}

async function balance(gw: SpawnedGateway): Promise<number> {
  const res = await fetch(`${gw.url}/v1/credits`, { headers: { authorization: `Bearer ${gw.key}` } });
  return ((await res.json()) as { data: { credits: { balance: number } } }).data.credits.balance;
}

/** Settlement runs after the answer is sent: wait until the balance moves off `from`. */
async function balanceAfter(gw: SpawnedGateway, from: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const now = await balance(gw);
    if (now !== from) return now;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the balance did not change');
}

async function errorOf(promise: Promise<unknown>): Promise<{ status: number; error: { code: string; message: string; details?: Record<string, unknown> } }> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!error) throw new Error('expected the request to fail');
  return error as never;
}

describe('the model catalog with the openai plugin and plain-string ids', () => {
  let upstream: FakeMediaUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeMediaUpstream();
    upstream.override = chatReply;
    gw = await spawnGateway({ config: config(upstream) });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const granted = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'accounts', 'credits', 'local@localhost', '--add', '5000']);
    expect(granted.exitCode).toBe(0);
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('logs the unpriced model once at start-up', () => {
    const lines = gw.stderr().split('\n').filter((l) => l.includes('have no price'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('oa/my-local-model');
    expect(lines[0]).toContain("billing.unpriced: 'free'");
  });

  it('/v1/models shows catalog pricing, context, modalities and image options with no pricing in the config', async () => {
    const mini = (await client.models.retrieve('oa/gpt-4o-mini')) as unknown as Record<string, unknown>;
    expect(mini).toMatchObject({
      id: 'oa/gpt-4o-mini',
      type: 'chat',
      context_length: 128_000,
      pricing: { prompt: '0.00000015', completion: '0.0000006', input_cache_read: '0.000000075' },
      architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
    });
    expect(mini.capabilities).toEqual(expect.arrayContaining(['function_calling', 'vision']));
    const list = new Map<string, Record<string, unknown>>();
    for await (const m of client.models.list()) list.set(m.id, m as unknown as Record<string, unknown>);
    expect(list.get('oa/gpt-image-1')).toMatchObject({
      type: 'image_generation',
      capabilities: ['image_edit'],
      sizes: ['auto', '1024x1024', '1536x1024', '1024x1536'],
      qualities: ['auto', 'low', 'medium', 'high'],
      n: { min: 1, max: 10 },
      pricing: { prompt: '0.000005', completion: '0.00004' },
      architecture: { output_modalities: ['image'] },
    });
    expect(list.get('oa/dall-e-3')).toMatchObject({ styles: ['vivid', 'natural'], n: { min: 1, max: 1 }, pricing: { image: '0.04' } });
    expect(list.get('oa/tts-1')).toMatchObject({ type: 'audio', capabilities: ['speech'], voices: expect.arrayContaining(['alloy', 'nova']), pricing: { speech_character: '0.000015' } });
    expect(list.get('oa/whisper-1')).toMatchObject({ type: 'audio', capabilities: ['transcription', 'translation'], pricing: { audio_minute: '0.006' } });
    expect(list.get('oa/my-local-model')).toMatchObject({ type: 'chat', pricing: null, context_length: null });
    // The config's price wins; what it does not say still comes from the catalog.
    expect(list.get('oa/gpt-4.1')).toMatchObject({ pricing: { prompt: '0.001', completion: '0.002' }, context_length: 1_047_576 });
    expect((list.get('oa/gpt-4.1')!.pricing as Record<string, string>).input_cache_read).toBeUndefined();
  });

  it('a chat request to a catalog-priced model draws the catalog price (cache reads at their own price)', async () => {
    const before = await balance(gw);
    const done = await client.chat.completions.create({ model: 'oa/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(done.choices[0].message.content).toBe('priced answer');
    // 600 uncached × $0.15 + 400 cached × $0.075 + 500 out × $0.60, per million: $0.00042 = 0.42 credits.
    expect(before - (await balanceAfter(gw, before))).toBeCloseTo(0.42, 6);
  });

  it('config pricing overrides the catalog', async () => {
    const before = await balance(gw);
    await client.chat.completions.create({ model: 'oa/gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    // 1000 in × $1000 + 500 out × $2000, per million = $2 = 2000 credits (the catalog says 5.4).
    expect(before - (await balanceAfter(gw, before))).toBeCloseTo(2000, 6);
  });

  it('serves images.generate for a plain gpt-image-1; options it does not declare pass through', async () => {
    const result = await client.images.generate({ model: 'oa/gpt-image-1', prompt: 'a dot', size: 'auto', background: 'transparent', style: 'vivid' } as OpenAI.ImageGenerateParamsNonStreaming);
    expect(upstream.requests[0].json).toEqual({ model: 'gpt-image-1', prompt: 'a dot', n: 1, size: 'auto', style: 'vivid', background: 'transparent' });
    expect(checkPng(Buffer.from(await (await fetch(result.data![0].url!)).arrayBuffer()))).toMatchObject({ crcOk: true });
  });

  it('an image size outside the model’s list is a 422 naming the field and the allowed values', async () => {
    const bad = await errorOf(client.images.generate({ model: 'oa/dall-e-3', prompt: 'p', size: '512x512' as '1024x1024' }));
    expect(bad.status).toBe(422);
    expect(bad.error.code).toBe('validation_error');
    expect(bad.error.message).toContain('1024x1024, 1792x1024, 1024x1792');
    expect(bad.error.details).toMatchObject({ fields: { size: expect.stringContaining('1024x1024, 1792x1024, 1024x1792') }, allowed: { sizes: ['1024x1024', '1792x1024', '1024x1792'] } });
    const many = await errorOf(client.images.generate({ model: 'oa/dall-e-3', prompt: 'p', n: 2 }));
    expect(many.status).toBe(422);
    expect(many.error.details).toMatchObject({ fields: { n: 'must be 1 for dall-e-3' } });
    const quality = await errorOf(client.images.generate({ model: 'oa/gpt-image-1', prompt: 'p', quality: 'ultra' as 'high' }));
    expect(quality.error.details).toMatchObject({ fields: { quality: 'must be one of auto, low, medium, high for gpt-image-1' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('serves audio.speech and audio.transcriptions.create for plain tts-1 and whisper-1', async () => {
    const speech = await client.audio.speech.create({ model: 'oa/tts-1', input: 'catalog speech', voice: 'nova', response_format: 'wav' });
    expect(speech.headers.get('content-type')).toBe('audio/wav');
    expect(upstream.requests[0].json).toMatchObject({ model: 'tts-1', voice: 'nova' });
    const text = await client.audio.transcriptions.create({ model: 'oa/whisper-1', file: await toFile(Buffer.from('fake mp3'), 'a.mp3', { type: 'audio/mpeg' }) });
    expect(text.text).toBe('Bonjour tout le monde. Second sentence.');
    expect(upstream.requests[1].fields.model).toEqual(['whisper-1']);
  });

  it('gateway models ls shows type, context, prices per million and marks the unpriced model', async () => {
    const result = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'models', 'ls']);
    expect(result.exitCode).toBe(0);
    const out = String(result.stdout);
    expect(out).toMatch(/^ID\s+TYPE\s+CONTEXT\s+INPUT \$\/1M\s+OUTPUT \$\/1M/);
    expect(out).toMatch(/oa\/gpt-4o-mini\s+chat\s+128k\s+0\.15\s+0\.6\s/);
    expect(out).toMatch(/oa\/dall-e-3\s+image_generation\s+-\s+-\s+-\s+0\.04\/image/);
    expect(out).toMatch(/oa\/my-local-model\s+chat\s+-\s+UNPRICED/);
    expect(out).toContain("1 unpriced model(s): they are served free (billing.unpriced: 'free')");
  });
});

describe("billing.unpriced: 'reject'", () => {
  let upstream: FakeMediaUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeMediaUpstream();
    upstream.override = chatReply;
    gw = await spawnGateway({ config: config(upstream, { unpriced: 'reject', enforce: false }) });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('refuses an unpriced model with 403 model_unpriced before calling the upstream, and serves priced ones', async () => {
    const refused = await errorOf(client.chat.completions.create({ model: 'oa/my-local-model', messages: [{ role: 'user', content: 'hi' }] }));
    expect(refused.status).toBe(403);
    expect(refused.error.code).toBe('model_unpriced');
    expect(refused.error.message).toContain("'oa/my-local-model' has no price");
    expect(refused.error.message).toContain("billing.unpriced: 'reject'");
    expect(upstream.requests).toHaveLength(0);
    const served = await client.chat.completions.create({ model: 'oa/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(served.choices[0].message.content).toBe('priced answer');
    expect(gw.stderr()).toContain("requests to them are refused (billing.unpriced: 'reject')");
  });
});
