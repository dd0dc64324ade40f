import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, encodePng } from '../../plugins/mock/png.ts';
import { readMp3 } from '../../plugins/mock/mp3.ts';
import { readWav } from '../../plugins/mock/wav.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { checkPng, expectedRawBytes } from '../media/png-check.ts';

/** The SDK types list OpenAI's sizes only; the gateway takes any WxH. */
const size = (s: string) => s as '1024x1024';

describe('images and audio through mock, with the official openai client', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await spawnGateway();
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('images.generate with url: the URL serves a valid PNG of the requested size', async () => {
    const result = await client.images.generate({ model: 'mock/image', prompt: 'a lighthouse at dusk', size: size('320x200'), n: 2, response_format: 'url' });
    expect(result.data).toHaveLength(2);
    for (const item of result.data!) {
      expect(item.url).toMatch(new RegExp(`^${gw.url}/v1/temp-images/[A-Za-z0-9]{40}\\.png$`));
      expect(item.revised_prompt).toContain('a lighthouse at dusk');
      const res = await fetch(item.url!);
      expect(res.headers.get('content-type')).toBe('image/png');
      const info = checkPng(new Uint8Array(await res.arrayBuffer()));
      expect(info).toMatchObject({ width: 320, height: 200, crcOk: true });
      expect(info.rawBytes).toBe(expectedRawBytes(320, 200, info.colorType));
    }
  });

  it('images.generate with b64_json: different prompts and seeds give different pictures', async () => {
    const b64 = async (prompt: string, seed: number) => {
      const result = await client.images.generate({ model: 'mock/image', prompt, size: size('64x64'), response_format: 'b64_json', seed } as OpenAI.ImageGenerateParamsNonStreaming);
      expect(result.data![0].url).toBeUndefined();
      return Buffer.from(result.data![0].b64_json!, 'base64');
    };
    const a = await b64('red apple', 1);
    expect(checkPng(a)).toMatchObject({ width: 64, height: 64, crcOk: true });
    expect(a.equals(await b64('red apple', 1))).toBe(true);
    expect(a.equals(await b64('red apple', 2))).toBe(false);
    expect(a.equals(await b64('green pear', 1))).toBe(false);
  });

  it('images.edit with a mask changes only the transparent area', async () => {
    const w = 32;
    const h = 32;
    const base = new Uint8Array(w * h * 4).fill(100);
    const mask = new Uint8Array(w * h * 4).fill(255);
    for (let y = 0; y < h / 2; y++) for (let x = 0; x < w; x++) mask[(y * w + x) * 4 + 3] = 0; // top half editable
    const result = await client.images.edit({
      model: 'mock/image',
      image: await toFile(encodePng({ width: w, height: h, rgba: base }), 'photo.png', { type: 'image/png' }),
      mask: await toFile(encodePng({ width: w, height: h, rgba: mask }), 'mask.png', { type: 'image/png' }),
      prompt: 'a flock of birds',
      size: size(`${w}x${h}`),
      response_format: 'b64_json',
    });
    const out = decodePng(Buffer.from(result.data![0].b64_json!, 'base64'));
    expect([out.width, out.height]).toEqual([w, h]);
    const px = (x: number, y: number) => [...out.rgba.subarray((y * w + x) * 4, (y * w + x) * 4 + 3)];
    let changed = 0;
    for (let y = 0; y < h / 2; y++) for (let x = 0; x < w; x++) if (px(x, y).some((v) => v !== 100)) changed += 1;
    expect(changed).toBeGreaterThan((w * h) / 4);
    for (let y = h / 2; y < h; y++) for (let x = 0; x < w; x++) expect(px(x, y)).toEqual([100, 100, 100]);
  });

  it('images.generate and images.edit with stream: true answer OpenAI\'s image events (was a JSON body the SDK read as no events)', async () => {
    const stream = await client.images.generate({ model: 'mock/image', prompt: 'a streamed lighthouse', size: size('48x32'), stream: true, partial_images: 2 });
    const events: OpenAI.ImageGenStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['image_generation.completed']);
    const [done] = events as OpenAI.ImageGenCompletedEvent[];
    expect(checkPng(Buffer.from(done.b64_json, 'base64'))).toMatchObject({ width: 48, height: 32, crcOk: true });
    expect(done).toMatchObject({ size: '48x32', output_format: 'png', quality: 'auto', background: 'auto', usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) } });
    expect(Math.abs(done.created_at - Date.now() / 1000)).toBeLessThan(60);
    // The same picture as without stream (stream and partial_images never reach the provider).
    const plain = await client.images.generate({ model: 'mock/image', prompt: 'a streamed lighthouse', size: size('48x32'), response_format: 'b64_json' });
    expect(done.b64_json).toBe(plain.data![0].b64_json);

    const png = encodePng({ width: 16, height: 16, rgba: new Uint8Array(16 * 16 * 4).fill(0) });
    const edits = await client.images.edit({ model: 'mock/image', image: await toFile(png, 'a.png', { type: 'image/png' }), prompt: 'birds', size: size('16x16'), stream: true });
    const edited: OpenAI.ImageEditStreamEvent[] = [];
    for await (const event of edits) edited.push(event);
    expect(edited.map((e) => e.type)).toEqual(['image_edit.completed']);
    expect(checkPng(Buffer.from((edited[0] as OpenAI.ImageEditCompletedEvent).b64_json, 'base64'))).toMatchObject({ width: 16, height: 16, crcOk: true });

    const bad = await client.images.generate({ model: 'mock/image', prompt: 'x', stream: 'yes' as unknown as true }).catch((e: unknown) => e);
    expect((bad as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
  });

  it('rejects invalid image requests with 422 and the field map', async () => {
    const error = await client.images.generate({ model: 'mock/image', prompt: 'x'.repeat(4001), n: 11, size: size('big') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    const body = (error as { error: { code: string; details: { fields: Record<string, string> } } }).error;
    expect(body.code).toBe('validation_error');
    expect(Object.keys(body.details.fields).sort()).toEqual(['n', 'prompt', 'size']);
  });

  let speech: Buffer;

  it('audio.speech answers a valid WAV whose duration follows the input and speed', async () => {
    const input = 'The gateway speaks. It records every generation in the library.';
    const res = await client.audio.speech.create({ model: 'mock/tts', input, voice: 'fable', response_format: 'wav' });
    expect(res.headers.get('content-type')).toBe('audio/wav');
    speech = Buffer.from(await res.arrayBuffer());
    const info = readWav(speech)!;
    expect(info).toMatchObject({ sampleRate: 24_000, channels: 1, bitsPerSample: 16 });
    expect(info.durationSeconds).toBeCloseTo(input.length * 0.06, 2);
    const fast = readWav(Buffer.from(await (await client.audio.speech.create({ model: 'mock/tts', input, voice: 'onyx', response_format: 'wav', speed: 2 })).arrayBuffer()))!;
    expect(fast.durationSeconds).toBeCloseTo(info.durationSeconds / 2, 2);
  });

  it('audio.speech with the default format answers a valid MP3 that mock/whisper reads back', async () => {
    const input = 'The default format is mp3.';
    const res = await client.audio.speech.create({ model: 'mock/tts', input, voice: 'alloy' });
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const mp3 = Buffer.from(await res.arrayBuffer());
    // An ID3v2 tag, then the first frame's sync word: 11 set bits, MPEG-2 Layer III.
    expect(mp3.toString('latin1', 0, 3)).toBe('ID3');
    const audio = 10 + ((mp3[6] << 21) | (mp3[7] << 14) | (mp3[8] << 7) | mp3[9]);
    expect(mp3[audio]).toBe(0xff);
    expect(mp3[audio + 1] & 0xe0).toBe(0xe0);
    expect((mp3[audio + 1] >> 1) & 3).toBe(1); // Layer III
    const info = readMp3(mp3)!;
    expect(info.frames).toBeGreaterThan(10);
    expect(info.durationSeconds).toBeGreaterThanOrEqual(input.length * 0.06);
    const heard = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await toFile(mp3, 'speech.mp3', { type: 'audio/mpeg' }) });
    expect(heard.text).toBe(input);
  });

  it('audio.speech with stream_format sse answers OpenAI\'s speech events whose audio is the same file (was the raw audio)', async () => {
    const input = 'Streamed speech, as server-sent events.';
    const res = await client.audio.speech.create({ model: 'mock/tts', input, voice: 'alloy', response_format: 'wav', stream_format: 'sse' });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; audio?: string; usage?: Record<string, number> });
    expect(events.at(-1)).toMatchObject({ type: 'speech.audio.done', usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) } });
    const deltas = events.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((e) => e.type === 'speech.audio.delta')).toBe(true);
    const audio = Buffer.concat(deltas.map((e) => Buffer.from(e.audio!, 'base64')));
    // A client that joins the base64 text and decodes once gets the same bytes: no piece but the last is padded.
    expect(deltas.slice(0, -1).every((e) => !e.audio!.endsWith('='))).toBe(true);
    expect(Buffer.from(deltas.map((e) => e.audio!).join(''), 'base64').equals(audio)).toBe(true);
    const plain = Buffer.from(await (await client.audio.speech.create({ model: 'mock/tts', input, voice: 'alloy', response_format: 'wav' })).arrayBuffer());
    expect(audio.equals(plain)).toBe(true);
    const bad = await client.audio.speech.create({ model: 'mock/tts', input, voice: 'alloy', stream_format: 'video' as 'sse' }).catch((e: unknown) => e);
    expect((bad as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
  });

  it('audio.speech refuses opus, aac and flac from mock/tts with a clear 422', async () => {
    for (const format of ['opus', 'aac', 'flac'] as const) {
      const error = await client.audio.speech.create({ model: 'mock/tts', input: 'hi', voice: 'alloy', response_format: format }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
      expect((error as Error).message).toContain(`cannot encode ${format}`);
      expect((error as { param?: string }).param).toBe('response_format');
    }
  });

  it('audio.transcriptions.create with stream: true answers transcript.text events (was a JSON body the SDK read as no events)', async () => {
    const stream = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await toFile(speech, 'speech.wav', { type: 'audio/wav' }), stream: true });
    const events: OpenAI.Audio.TranscriptionStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const done = events.at(-1) as OpenAI.Audio.TranscriptionTextDoneEvent;
    expect(done).toMatchObject({ type: 'transcript.text.done', text: 'The gateway speaks. It records every generation in the library.', usage: { type: 'duration', seconds: expect.any(Number) } });
    const deltas = events.slice(0, -1) as OpenAI.Audio.TranscriptionTextDeltaEvent[];
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((e) => e.type === 'transcript.text.delta')).toBe(true);
    expect(deltas.map((e) => e.delta).join('')).toBe(done.text);
    const bad = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await toFile(speech, 'speech.wav'), stream: 'maybe' as unknown as false }).catch((e: unknown) => e);
    expect((bad as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
  });

  it('audio.transcriptions.create in all five formats round-trips the spoken text', async () => {
    const text = 'The gateway speaks. It records every generation in the library.';
    const file = () => toFile(speech, 'speech.wav', { type: 'audio/wav' });
    const json = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await file(), response_format: 'json' });
    expect(json.text).toBe(text);
    const plain = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await file(), response_format: 'text' });
    expect(plain).toBe(`${text}\n`);
    const srt = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await file(), response_format: 'srt' });
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:0\d,\d{3}\nThe gateway speaks\.\n\n2\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\nIt records every generation in the library\.\n\n$/);
    const vtt = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await file(), response_format: 'vtt' });
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:0\d\.\d{3}\nThe gateway speaks\.\n\n/);
    const verbose = await client.audio.transcriptions.create({ model: 'mock/whisper', file: await file(), response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] });
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'english', text });
    expect(verbose.duration).toBeCloseTo(text.length * 0.06, 2);
    expect(verbose.segments).toHaveLength(2);
    expect(verbose.words?.[0]).toMatchObject({ word: 'The', start: 0 });
  });

  it('audio.translations.create answers English text', async () => {
    const result = await client.audio.translations.create({ model: 'mock/whisper', file: await toFile(speech, 'speech.wav', { type: 'audio/wav' }) });
    expect(result.text).toBe('The gateway speaks. It records every generation in the library.');
    const verbose = await client.audio.translations.create({ model: 'mock/whisper', file: await toFile(speech, 'speech.wav'), response_format: 'verbose_json' });
    expect(verbose).toMatchObject({ task: 'translate', language: 'english' });
  });

  it('413s an upload over 25 MB', async () => {
    const error = await client.audio.transcriptions
      .create({ model: 'mock/whisper', file: await toFile(Buffer.alloc(26 * 1024 * 1024), 'huge.wav') })
      .catch((e: unknown) => e);
    expect((error as { status: number }).status).toBe(413);
    expect((error as { error: { code: string } }).error.code).toBe('request_too_large');
  });
});
