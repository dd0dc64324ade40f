import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64, startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { IMAGEN_PNG, startFakeGoogleMedia, type FakeGoogleMedia } from '../helpers/fake-google-media.ts';
import { createFundedKey, creditsUsed } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

/** Google's image models on OpenAI's images endpoints, through the google plugin: Imagen (`:predict`) and Gemini's image models (`:generateContent`). */
describe("Google's image models on /v1/images with the OpenAI SDK", () => {
  let media: FakeGoogleMedia;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    const dir = tempDir();
    media = await startFakeGoogleMedia();
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash-image': { thinking: false, gemini3: false, image: true } }, apiKey: 'goog-upstream-key', finalText: 'Here it is.' });
    const configFile = writeConfig(dir, {
      providers: {
        studio: { plugin: 'google', apiKey: media.apiKey, baseURL: media.url, headers: { 'x-gateway-test-tag': 'studio' } },
        nano: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, headers: { 'x-gateway-test-tag': 'nano' } },
      },
      routing: { retry: { attempts: 1 } },
    });
    const dataDir = path.join(dir, 'data');
    apiKey = await createFundedKey(configFile, dataDir, 'images@example.com', 100_000);
    gw = await spawnGateway({ configFile, dataDir });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([media?.close(), gemini?.close()]);
  });

  it('Imagen: n images in one :predict call, size as aspect ratio, billed per image', async () => {
    const before = await creditsUsed(gw.url, apiKey);
    const result = await client.images.generate({ model: 'studio/imagen-4.0-generate-001', prompt: 'a red fox', n: 2, size: '1792x1024', response_format: 'b64_json' });
    expect(result.data?.map((d) => d.b64_json)).toEqual([IMAGEN_PNG.toString('base64'), IMAGEN_PNG.toString('base64')]);
    expect(media.imagenCalls.at(-1)).toEqual({ model: 'imagen-4.0-generate-001', prompt: 'a red fox', parameters: { sampleCount: 2, aspectRatio: '16:9' } });
    // The provider's configured headers go up with the call, as they do with chat and embeddings.
    expect(media.requests.at(-1)).toMatchObject({ path: '/v1beta/models/imagen-4.0-generate-001:predict', key: true, tag: 'studio' });
    // 2 images at $0.04.
    expect((await creditsUsed(gw.url, apiKey)) - before).toBe(80);
    expect(media.rejections).toEqual([]);
  });

  it('Imagen: a size it does not make is refused before anything goes up; all images filtered is content_filter', async () => {
    const calls = media.imagenCalls.length;
    const bad = await client.images.generate({ model: 'studio/imagen-4.0-fast-generate-001', prompt: 'square', size: '512x512' }).then(() => undefined, (e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.APIError);
    expect([400, 422]).toContain((bad as InstanceType<typeof OpenAI.APIError>).status);
    expect(media.imagenCalls.length).toBe(calls);
    const filtered = await client.images.generate({ model: 'studio/imagen-4.0-fast-generate-001', prompt: 'something blocked' }).then(() => undefined, (e: unknown) => e);
    expect(filtered).toBeInstanceOf(OpenAI.APIError);
    expect(((filtered as InstanceType<typeof OpenAI.APIError>).error as Json | undefined)?.code).toBe('content_filter');
    expect((filtered as Error).message).toContain('safety filter');
  });

  it("Gemini's image model on images.generate: generateContent asking for IMAGE, one call per image", async () => {
    gemini.requests.length = 0;
    const result = await client.images.generate({ model: 'nano/gemini-2.5-flash-image', prompt: 'a blue bird', n: 2, size: '1024x1536', response_format: 'b64_json' });
    expect(result.data?.map((d) => d.b64_json)).toEqual([FAKE_PNG_BASE64, FAKE_PNG_BASE64]);
    expect(gemini.requests).toHaveLength(2);
    expect(gemini.requests.map((r) => r.headers['x-gateway-test-tag'])).toEqual(['nano', 'nano']);
    const body = gemini.requests[0].json as Json;
    expect(body.generationConfig).toEqual({ responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '2:3' } });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'a blue bird' }] }]);
  });

  it("Gemini's image model on images.edit: the image goes up before the prompt", async () => {
    gemini.requests.length = 0;
    const result = await client.images.edit({
      model: 'nano/gemini-2.5-flash-image',
      prompt: 'make it night',
      image: await toFile(IMAGEN_PNG, 'in.png', { type: 'image/png' }),
      response_format: 'b64_json',
    } as OpenAI.ImageEditParamsNonStreaming);
    expect(result.data?.[0].b64_json).toBe(FAKE_PNG_BASE64);
    const parts = (gemini.requests[0].json as Json).contents[0].parts;
    expect(parts).toEqual([{ inlineData: { mimeType: 'image/png', data: IMAGEN_PNG.toString('base64') } }, { text: 'make it night' }]);
  });
});
