/**
 * What a media answer is charged when the provider or the gateway does not do what was asked, from
 * outside: the real CLI against a fake OpenAI-compatible upstream, an account with credits.
 * - An image answer with more images than `n`: the first `n` are served and charged.
 * - An empty answer (`{"data": []}`, no audio, no results, a transcription without its text) or one short of
 *   some inputs' results: 502 naming the provider and what it did not return, nothing charged.
 * - The gateway cannot store the images it made (the data dir's `temp-images` full, or read-only):
 *   503 service_unavailable naming storage, nothing charged; it serves again once it can write.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { creditsOf } from '../helpers/credit-holds.ts';
import { createFundedKey } from '../helpers/funded-key.ts';
import { fillUntilFull } from '../helpers/fill-until-full.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startFakeMediaUpstream, type FakeMediaUpstream, type MediaReply } from '../media/fake-media-upstream.ts';
import { encodePng } from '../../plugins/mock/png.ts';

/** 0.04 USD an image: 40 credits. */
const IMAGE_CREDITS = 40;
const PNG_B64 = encodePng({ width: 2, height: 2, rgba: new Uint8Array(16).fill(255) }).toString('base64');
const json = (body: unknown): MediaReply => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

let upstream: FakeMediaUpstream;
let gw: SpawnedGateway;
let key: string;
const tempImages = () => path.join(gw.dataDir, 'temp-images');
let mounted = false;

beforeAll(async () => {
  upstream = await startFakeMediaUpstream();
  const dir = tempDir('gw-media-billing-');
  const dataDir = path.join(dir, 'data');
  const configFile = writeConfig(dir, {
    providers: {
      up: {
        plugin: 'openai',
        baseURL: `${upstream.url}/v1`,
        apiKey: 'upstream-secret',
        models: [
          { id: 'dall-e-2', type: 'image_generation', sizes: ['2x2'], pricing: { image: 0.04 } },
          { id: 'tts-1', type: 'audio', capabilities: ['speech'], pricing: { speechChars: 15 } },
          { id: 'whisper-1', type: 'audio', capabilities: ['transcription'], pricing: { audioMinute: 0.006 } },
          { id: 'text-embedding-3-small', type: 'embedding', pricing: { input: 100 } },
          { id: 'omni-moderation-latest', type: 'moderation', pricing: { input: 100 } },
        ],
      },
    },
  });
  key = await createFundedKey(configFile, dataDir, 'media-billing@example.test', null);
  gw = await spawnGateway({ configFile, dataDir });
});
afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
  if (mounted) execFileSync('umount', ['-l', tempImages()]);
});
beforeEach(() => {
  upstream.override = undefined;
});

async function generate(body: Record<string, unknown>): Promise<{ status: number; body: { data?: unknown[]; error?: { code: string; message: string } }; requestId: string; retryAfter: string | null }> {
  const res = await fetch(`${gw.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up/dall-e-2', prompt: 'a white square', size: '2x2', ...body }),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown[] }, requestId: res.headers.get('x-request-id')!, retryAfter: res.headers.get('retry-after') };
}

/** The ledger line of a request (the gateway writes it before it answers). */
function ledgerLine(requestId: string) {
  return readLedger(path.join(gw.dataDir, 'usage.jsonl')).find((line) => line.request_id === requestId);
}

describe('an image answer with more images than n', () => {
  it.each([1, 2])('n=%i: the first n are served and charged, the rest are dropped', async (n) => {
    upstream.override = (request) =>
      request.path === '/v1/images/generations' ? json({ created: 1, data: Array.from({ length: 3 }, (_, i) => ({ b64_json: PNG_B64, revised_prompt: `image ${i}` })), usage: { input_tokens: 11, output_tokens: 300 } }) : undefined;
    const before = await creditsOf(gw.url, key);
    const answer = await generate({ n, response_format: 'b64_json' });
    expect(answer.status).toBe(200);
    expect((answer.body.data as Array<{ revised_prompt: string }>).map((image) => image.revised_prompt)).toEqual(['image 0', 'image 1'].slice(0, n));
    expect(before - (await creditsOf(gw.url, key))).toBeCloseTo(n * IMAGE_CREDITS, 6);
    // The output tokens the provider counted for its three images, an image's share each for the n kept.
    expect(ledgerLine(answer.requestId)).toMatchObject({ media: { images: n }, input_tokens: 11, output_tokens: n * 100, charged_credits: n * IMAGE_CREDITS });
  });
});

describe('an empty answer from an OpenAI-compatible upstream', () => {
  const post = (route: string, body: Record<string, unknown>) => ({ route, body: (): BodyInit => JSON.stringify(body), type: 'application/json' as string | undefined });
  const upload = (route: string, fields: Record<string, string>) => ({
    route,
    body: (): BodyInit => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'speech.wav');
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      return form;
    },
    type: undefined as string | undefined,
  });
  // A transcription answered `{}` has no text: not OpenAI's transcript of silence (`{"text": ""}`, served), a transcript the provider did not return.
  it.each([
    ['transcriptions', 'no transcript', upload('/v1/audio/transcriptions', { model: 'up/whisper-1' }), json({})],
    ['embeddings (one of two inputs)', 'no embedding for input 1 (of 2)', post('/v1/embeddings', { model: 'up/text-embedding-3-small', input: ['hello', 'there'] }), json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } })],
    ['moderations (one of two inputs)', 'no moderation results for 1 of its 2 inputs', post('/v1/moderations', { model: 'up/omni-moderation-latest', input: ['hello', 'there'] }), json({ id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: false, categories: {}, category_scores: {} }] })],
    ['images', 'no images', post('/v1/images/generations', { model: 'up/dall-e-2', prompt: 'a white square', size: '2x2' }), json({ created: 1, data: [] })],
    ['speech', 'no audio', post('/v1/audio/speech', { model: 'up/tts-1', input: 'hello there', voice: 'alloy' }), { headers: { 'content-type': 'audio/mpeg' }, body: '' }],
    ['embeddings', 'no embeddings', post('/v1/embeddings', { model: 'up/text-embedding-3-small', input: 'hello there' }), json({ object: 'list', data: [], model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } })],
    ['moderations', 'no moderation results', post('/v1/moderations', { model: 'up/omni-moderation-latest', input: 'hello there' }), json({ id: 'modr-1', model: 'omni-moderation-latest', results: [] })],
  ] as const)('%s: 502 provider_error saying the provider returned %s, nothing charged', async (_name, none, request, reply) => {
    upstream.override = () => reply;
    const before = await creditsOf(gw.url, key);
    const res = await fetch(`${gw.url}${request.route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...(request.type ? { 'content-type': request.type } : {}) },
      body: request.body(),
    });
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(502);
    expect(body.error.code).toBe('provider_error');
    expect(body.error.message).toContain(`The provider 'up' returned ${none}`);
    expect(body.error.message).not.toMatch(/plugin/);
    expect(await creditsOf(gw.url, key)).toBe(before);
    expect(ledgerLine(res.headers.get('x-request-id')!)).toBeUndefined();
  });
});

describe('images the gateway cannot store', () => {

  const healthy = () => expect.poll(async () => (await fetch(`${gw.url}/health`)).status, { timeout: 10_000, interval: 100 }).toBe(200);

  /** Each response format, once the data dir's probe says it can be written (a failed image store says it cannot, as a failed ledger line does). */
  async function refusedUncharged(errno: string): Promise<void> {
    const before = await creditsOf(gw.url, key);
    for (const format of ['url', 'b64_json']) {
      await healthy();
      const answer = await generate({ response_format: format });
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe('5');
      expect(answer.body.error?.code).toBe('service_unavailable');
      expect(answer.body.error?.message).toMatch(new RegExp(`Storage is unavailable: .*generated images.*\\(${errno}\\).*not charged`));
      expect(ledgerLine(answer.requestId)).toBeUndefined();
    }
    expect(await creditsOf(gw.url, key)).toBe(before);
  }

  it('full (ENOSPC) or read-only (EROFS): 503 service_unavailable naming storage, nothing charged; served and charged again once it can write', async () => {
    fs.mkdirSync(tempImages(), { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', tempImages()]);
    mounted = true;
    fillUntilFull(path.join(tempImages(), 'filler'));
    await refusedUncharged('ENOSPC');

    fs.rmSync(path.join(tempImages(), 'filler'));
    execFileSync('mount', ['-o', 'remount,ro', tempImages()]);
    await refusedUncharged('EROFS');

    execFileSync('mount', ['-o', 'remount,rw', tempImages()]);
    await healthy();
    const before = await creditsOf(gw.url, key);
    const served = await generate({});
    expect(served.status).toBe(200);
    expect(before - (await creditsOf(gw.url, key))).toBeCloseTo(IMAGE_CREDITS, 6);
  }, 60_000);
});
