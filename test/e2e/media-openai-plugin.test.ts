import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodePng } from '../../plugins/mock/png.ts';
import { readWav } from '../../plugins/mock/wav.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startFakeMediaUpstream, type FakeMediaUpstream } from '../media/fake-media-upstream.ts';
import { checkPng } from '../media/png-check.ts';

const size = (s: string) => s as '1024x1024';

describe('images and audio through the openai plugin against a fake upstream', () => {
  let upstream: FakeMediaUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeMediaUpstream();
    gw = await spawnGateway({
      config: {
        providers: {
          up: {
            plugin: 'openai',
            baseURL: `${upstream.url}/v1`,
            apiKey: 'upstream-secret',
            models: [
              // Tiny sizes keep the fake's PNGs small; the config's list wins over the catalog's.
              { id: 'dall-e-2', type: 'image_generation', capabilities: ['image_edit'], sizes: ['24x12', '6x6', '1024x1024'] },
              { id: 'gpt-image-1', type: 'image_generation', capabilities: ['image_edit'], sizes: ['8x8', 'auto'] },
              { id: 'tts-1', type: 'audio', capabilities: ['speech'] },
              { id: 'whisper-1', type: 'audio' },
            ],
          },
        },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.override = undefined;
  });

  it('images.generate asks upstream for b64_json and serves the bytes at a gateway URL', async () => {
    const result = await client.images.generate({ model: 'up/dall-e-2', prompt: 'a red square', size: size('24x12'), n: 2, quality: 'standard' } as OpenAI.ImageGenerateParamsNonStreaming);
    const sent = upstream.requests[0];
    expect(sent.path).toBe('/v1/images/generations');
    expect(sent.headers.authorization).toBe('Bearer upstream-secret');
    expect(sent.json).toEqual({ model: 'dall-e-2', prompt: 'a red square', n: 2, size: '24x12', quality: 'standard', response_format: 'b64_json' });
    expect(result.data).toHaveLength(2);
    expect(result.data![0].url!.startsWith(`${gw.url}/v1/temp-images/`)).toBe(true);
    expect(result.data![0].revised_prompt).toBe('revised: a red square');
    const png = new Uint8Array(await (await fetch(result.data![0].url!)).arrayBuffer());
    expect(checkPng(png)).toMatchObject({ width: 24, height: 12, crcOk: true });
  });

  it('passes b64_json through and never sends response_format to gpt-image models', async () => {
    const result = await client.images.generate({ model: 'up/gpt-image-1', prompt: 'p', size: size('8x8'), response_format: 'b64_json', background: 'transparent' });
    expect(upstream.requests[0].json).toEqual({ model: 'gpt-image-1', prompt: 'p', n: 1, size: '8x8', background: 'transparent' });
    expect(checkPng(Buffer.from(result.data![0].b64_json!, 'base64'))).toMatchObject({ width: 8, height: 8 });
  });

  it('downloads images an upstream answers with a URL', async () => {
    const result = await client.images.generate({ model: 'up/dall-e-2', prompt: 'give me a [url]', response_format: 'b64_json' });
    expect(upstream.requests.map((r) => r.path)).toEqual(['/v1/images/generations', '/files/img.png?sig=abc']);
    expect(checkPng(Buffer.from(result.data![0].b64_json!, 'base64'))).toMatchObject({ width: 5, height: 7 });
  });

  it('images.edit forwards image, mask and fields as multipart', async () => {
    const image = encodePng({ width: 4, height: 4, rgba: new Uint8Array(64).fill(255) });
    const mask = encodePng({ width: 4, height: 4, rgba: new Uint8Array(64).fill(0) });
    const result = await client.images.edit({
      model: 'up/dall-e-2',
      image: await toFile(image, 'in.png', { type: 'image/png' }),
      mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      prompt: 'paint it blue',
      size: size('6x6'),
      response_format: 'b64_json',
    });
    const sent = upstream.requests[0];
    expect(sent.path).toBe('/v1/images/edits');
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.fields).toMatchObject({ model: ['dall-e-2'], prompt: ['paint it blue'], n: ['1'], size: ['6x6'], response_format: ['b64_json'] });
    expect(sent.files.image).toMatchObject({ filename: 'in.png', type: 'image/png' });
    expect(sent.files.image.bytes.equals(image)).toBe(true);
    expect(sent.files.mask.bytes.equals(mask)).toBe(true);
    expect(checkPng(Buffer.from(result.data![0].b64_json!, 'base64'))).toMatchObject({ width: 6, height: 6 });
  });

  it('audio.speech forwards the body and relays the audio and its type', async () => {
    const res = await client.audio.speech.create({ model: 'up/tts-1', input: 'hello upstream', voice: 'nova', response_format: 'wav', speed: 1.5 });
    expect(upstream.requests[0].path).toBe('/v1/audio/speech');
    expect(upstream.requests[0].json).toEqual({ model: 'tts-1', input: 'hello upstream', voice: 'nova', response_format: 'wav', speed: 1.5 });
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(readWav(Buffer.from(await res.arrayBuffer()))?.comment).toBe('hello upstream');
  });

  it('audio.transcriptions.create: json and text ask for json; srt, vtt and verbose_json ask for verbose_json', async () => {
    const file = async () => toFile(Buffer.from('fake mp3 bytes'), 'clip.mp3', { type: 'audio/mpeg' });
    const json = await client.audio.transcriptions.create({ model: 'up/whisper-1', file: await file(), language: 'fr', temperature: 0.1 });
    expect(json.text).toBe('Bonjour tout le monde. Second sentence.');
    expect(upstream.requests[0].path).toBe('/v1/audio/transcriptions');
    expect(upstream.requests[0].fields).toMatchObject({ model: ['whisper-1'], response_format: ['json'], language: ['fr'], temperature: ['0.1'] });
    expect(upstream.requests[0].files.file).toMatchObject({ filename: 'clip.mp3', type: 'audio/mpeg' });
    expect(await client.audio.transcriptions.create({ model: 'up/whisper-1', file: await file(), response_format: 'text' })).toBe('Bonjour tout le monde. Second sentence.\n');
    expect(upstream.requests[1].fields.response_format).toEqual(['json']);
    const srt = await client.audio.transcriptions.create({ model: 'up/whisper-1', file: await file(), response_format: 'srt' });
    expect(srt).toBe('1\n00:00:00,000 --> 00:00:01,500\nBonjour tout le monde.\n\n2\n00:00:01,500 --> 00:00:03,500\nSecond sentence.\n\n');
    expect(upstream.requests[2].fields.response_format).toEqual(['verbose_json']);
    const vtt = await client.audio.transcriptions.create({ model: 'up/whisper-1', file: await file(), response_format: 'vtt' });
    expect(vtt).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nBonjour tout le monde.\n\n00:00:01.500 --> 00:00:03.500\nSecond sentence.\n\n');
    const verbose = await client.audio.transcriptions.create({ model: 'up/whisper-1', file: await file(), response_format: 'verbose_json', timestamp_granularities: ['word'] });
    expect(upstream.requests[4].fields['timestamp_granularities[]']).toEqual(['word']);
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'french', duration: 3.5, words: [{ word: 'Bonjour', start: 0, end: 0.4 }] });
  });

  it('audio.translations.create goes to /audio/translations without a language', async () => {
    const result = await client.audio.translations.create({ model: 'up/whisper-1', file: await toFile(Buffer.from('x'), 'a.wav') });
    expect(result.text).toBe('Hello from the translation.');
    expect(upstream.requests[0].path).toBe('/v1/audio/translations');
    expect(upstream.requests[0].fields.language).toBeUndefined();
  });

  it('maps upstream errors to the spec codes without leaking the upstream key', async () => {
    upstream.override = () => ({ status: 429, headers: { 'content-type': 'application/json', 'retry-after': '7' }, body: JSON.stringify({ error: { message: 'slow down' } }) });
    const limited = await client.images.generate({ model: 'up/dall-e-2', prompt: 'p' }).catch((e: unknown) => e);
    expect((limited as { status: number }).status).toBe(429);
    expect((limited as { error: { code: string; retry_after: number } }).error).toMatchObject({ code: 'rate_limit_exceeded', retry_after: 7 });
    upstream.override = () => ({ status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: 'Incorrect API key provided: upstream-secret' } }) });
    const denied = await client.audio.speech.create({ model: 'up/tts-1', input: 'x', voice: 'alloy' }).catch((e: unknown) => e);
    expect((denied as { status: number }).status).toBe(502);
    expect(JSON.stringify((denied as { error: unknown }).error)).not.toContain('upstream-secret');
    upstream.override = () => ({ status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: 'Invalid file format.' } }) });
    const bad = await client.audio.transcriptions.create({ model: 'up/whisper-1', file: await toFile(Buffer.from('x'), 'a.txt') }).catch((e: unknown) => e);
    expect((bad as { status: number }).status).toBe(400);
    expect((bad as Error).message).toContain('Invalid file format.');
  });
});
