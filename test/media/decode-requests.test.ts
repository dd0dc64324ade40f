import { describe, expect, it } from 'vitest';
import { decodeSpeechRequest, decodeTranscriptionForm } from '../../src/media/decode-audio-request.ts';
import { decodeImageRequest, parseSize } from '../../src/media/decode-image-request.ts';
import { shareInputTokens } from '../../src/media/decode-embedding-request.ts';
import { decodeCreateBody, decodeListQuery, decodePatchBody } from '../../src/media/decode-media-request.ts';
import { GatewayError } from '../../src/errors/index.ts';

/** The code and status for a field map: 400 bad_request when a required field is missing (spec §7), else 422. */
function expectStatusFor(error: unknown): Record<string, string> {
  expect(error).toBeInstanceOf(GatewayError);
  const { code, status, details } = error as GatewayError;
  const fields = details!.fields as Record<string, string>;
  const missing = Object.keys(fields).filter((path) => fields[path].startsWith('is required'));
  expect({ code, status }).toEqual(missing.length > 0 ? { code: 'bad_request', status: 400 } : { code: 'validation_error', status: 422 });
  if (missing.length > 0) expect(details!.missing).toEqual(missing);
  return fields;
}

/** The field map a call throws. */
function fieldsOf(run: () => unknown): Record<string, string> {
  try {
    run();
  } catch (error) {
    return expectStatusFor(error);
  }
  throw new Error('expected a validation error');
}

async function fieldsOfAsync(run: () => Promise<unknown>): Promise<Record<string, string>> {
  try {
    await run();
  } catch (error) {
    return expectStatusFor(error);
  }
  throw new Error('expected a validation error');
}

describe('image request validation', () => {
  it('applies defaults and keeps provider-specific fields as extra', () => {
    const request = decodeImageRequest({ model: 'mock/image', prompt: 'a boat', steps: 30, background: 'transparent' });
    expect(request).toMatchObject({ n: 1, size: '1024x1024', width: 1024, height: 1024, responseFormat: 'url', extra: { steps: 30, background: 'transparent' } });
  });

  it('accepts the limits exactly and auto size', () => {
    const request = decodeImageRequest({ model: 'm', prompt: 'x'.repeat(4000), n: 10, size: 'auto', response_format: 'b64_json', seed: 7 });
    expect(request).toMatchObject({ n: 10, size: 'auto', width: 1024, responseFormat: 'b64_json', seed: 7 });
    expect(decodeImageRequest({ model: 'm', prompt: 'p', n: 1 }).n).toBe(1);
  });

  it('names every bad field at once', () => {
    expect(fieldsOf(() => decodeImageRequest({ prompt: 'x'.repeat(4001), n: 0, size: '1024', response_format: 'png' }))).toEqual({
      model: 'is required',
      prompt: 'must be at most 4000 characters',
      n: 'must be >= 1',
      size: expect.stringContaining('WxH'),
      response_format: 'must be one of url, b64_json',
    });
    expect(fieldsOf(() => decodeImageRequest({ model: 'm', prompt: '', n: 11 }))).toEqual({ prompt: 'must not be empty', n: 'must be <= 10' });
    expect(fieldsOf(() => decodeImageRequest({ model: 'm', prompt: 'p', n: 1.5, seed: 'x' }))).toEqual({ n: 'must be an integer', seed: 'must be a number' });
  });

  it('parses sizes', () => {
    expect(parseSize('256x512')).toEqual({ width: 256, height: 512 });
    expect(parseSize('0x10')).toBeUndefined();
    expect(parseSize('5000x10')).toBeUndefined();
    expect(parseSize('10 x 10')).toBeUndefined();
  });
});

describe('speech request validation', () => {
  it('defaults to mp3 at speed 1 and accepts the newer voices and custom voice ids', () => {
    expect(decodeSpeechRequest({ model: 'm', input: 'hi', voice: 'alloy' })).toMatchObject({ format: 'mp3', speed: 1, voice: 'alloy' });
    expect(decodeSpeechRequest({ model: 'm', input: 'hi', voice: 'marin', speed: 4 }).voice).toBe('marin');
    expect(decodeSpeechRequest({ model: 'm', input: 'hi', voice: { id: 'voice_123' }, speed: 0.25 }).voice).toBe('voice_123');
  });

  it('enforces input ≤ 4096, the voices, the formats and speed 0.25-4.0', () => {
    expect(decodeSpeechRequest({ model: 'm', input: 'x'.repeat(4096), voice: 'echo' }).input).toHaveLength(4096);
    expect(fieldsOf(() => decodeSpeechRequest({ model: 'm', input: 'x'.repeat(4097), voice: 'bob', response_format: 'ogg', speed: 4.5 }))).toEqual({
      input: 'must be at most 4096 characters',
      voice: expect.stringContaining('alloy, echo, fable, onyx, nova, shimmer'),
      response_format: 'must be one of mp3, opus, aac, flac, wav, pcm',
      speed: 'must be <= 4',
    });
    expect(fieldsOf(() => decodeSpeechRequest({ model: 'm', input: 'hi', voice: 'alloy', speed: 0.2 }))).toEqual({ speed: 'must be >= 0.25' });
    expect(fieldsOf(() => decodeSpeechRequest({}))).toEqual({ model: 'is required', input: 'is required', voice: 'is required' });
  });
});

describe('transcription form validation', () => {
  const form = (fields: Record<string, string | Blob>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    return f;
  };

  it('reads the file and options', async () => {
    const request = await decodeTranscriptionForm(
      form({ model: 'mock/whisper', file: new File([new Uint8Array([1, 2, 3])], 'a.wav', { type: 'audio/wav' }), language: 'DE', temperature: '0.2', response_format: 'srt', 'timestamp_granularities[]': 'word' }),
      'transcribe',
    );
    expect(request).toMatchObject({ model: 'mock/whisper', language: 'de', temperature: 0.2, responseFormat: 'srt', wordTimestamps: true, segmentTimestamps: false });
    expect(request.file).toMatchObject({ filename: 'a.wav', contentType: 'audio/wav' });
    expect([...request.file.data]).toEqual([1, 2, 3]);
  });

  it('requires a non-empty file and a model, and checks the options', async () => {
    expect(await fieldsOfAsync(() => decodeTranscriptionForm(form({ response_format: 'xml', temperature: '2' }), 'transcribe'))).toEqual({
      model: 'is required',
      file: 'is required',
      response_format: 'must be one of json, text, srt, verbose_json, vtt',
      temperature: 'must be <= 1',
    });
    expect(await fieldsOfAsync(() => decodeTranscriptionForm(form({ model: 'm', file: 'not a file', language: 'english' }), 'transcribe'))).toEqual({
      file: 'must be a file upload',
      language: 'must be an ISO-639-1 code such as en',
    });
    expect(await fieldsOfAsync(() => decodeTranscriptionForm(form({ model: 'm', file: new File([], 'empty.wav') }), 'translate'))).toEqual({ file: 'must not be empty' });
  });
});

describe('Media Library request validation', () => {
  const q = (s: string) => new URLSearchParams(s);

  it('pages with defaults and bounds', () => {
    expect(decodeListQuery(q(''))).toEqual({ mediaType: undefined, status: undefined, page: 1, pageSize: 20 });
    expect(decodeListQuery(q('page=3&page_size=100&media_type=music&status=failed'))).toEqual({ mediaType: 'music', status: 'failed', page: 3, pageSize: 100 });
    expect(decodeListQuery(q('media_type=video'), 'image').mediaType).toBe('image');
    expect(fieldsOf(() => decodeListQuery(q('page=0&page_size=101')))).toEqual({ page: 'must be >= 1', page_size: 'must be <= 100' });
    expect(fieldsOf(() => decodeListQuery(q('page=abc&page_size=0')))).toEqual({ page: 'must be an integer', page_size: 'must be >= 1' });
    expect(fieldsOf(() => decodeListQuery(q('page=1.5&page_size=')))).toEqual({ page: 'must be an integer', page_size: 'must be an integer' });
    // A negative page is an integer out of range (spec §8.2: page >= 1, page_size 1-100), not "not an integer".
    expect(fieldsOf(() => decodeListQuery(q('page=-1&page_size=-5')))).toEqual({ page: 'must be >= 1', page_size: 'must be >= 1' });
    // A page past 2^53 - 1 is not a number the envelope can echo exactly (99999999999999999999 came back as 1e20).
    expect(decodeListQuery(q(`page=${Number.MAX_SAFE_INTEGER}`)).page).toBe(Number.MAX_SAFE_INTEGER);
    expect(fieldsOf(() => decodeListQuery(q('page=99999999999999999999')))).toEqual({ page: `must be <= ${Number.MAX_SAFE_INTEGER}` });
    expect(fieldsOf(() => decodeListQuery(q('media_type=audio&status=done')))).toEqual({
      media_type: 'must be one of image, video, music, threed',
      status: 'must be one of pending, processing, completed, failed',
    });
  });

  it('requires media_type and model on create', () => {
    expect(decodeCreateBody({ media_type: 'video', model: 'v1', prompt: 'p', provider_task_id: 't', parameters: { duration: 5 } })).toEqual({
      mediaType: 'video', model: 'v1', prompt: 'p', providerTaskId: 't', parameters: { duration: 5 },
    });
    expect(fieldsOf(() => decodeCreateBody({ media_type: 'gif', parameters: [] }))).toEqual({
      media_type: 'must be one of image, video, music, threed',
      model: 'is required',
      parameters: 'must be an object',
    });
  });

  it('accepts the updatable fields (null clears), rejects the others', () => {
    expect(decodePatchBody({ status: 'completed', result_urls: ['a', 'b'], primary_url: null, width: 640, cost_credits: 1.5, input_tokens: 10 })).toEqual({
      status: 'completed', result_urls: ['a', 'b'], primary_url: null, width: 640, cost_credits: 1.5, input_tokens: 10,
    });
    expect(fieldsOf(() => decodePatchBody({ status: 'done', result_urls: [1], width: -1, input_tokens: 1.5, prompt: 'x', created_at: 1 }))).toEqual({
      status: 'must be one of pending, processing, completed, failed',
      result_urls: 'must be an array of strings',
      width: 'must be >= 0',
      input_tokens: 'must be an integer',
      prompt: 'is not an updatable field',
      created_at: 'is not an updatable field',
    });
  });
});

describe('embedding input tokens shared out per input', () => {
  it('in proportion to each input (~4 characters a token, a token array its length), adding up to the total billed', () => {
    expect(shareInputTokens(['abcd'], 9)).toEqual([9]);
    expect(shareInputTokens(['abcd', 'abcdefgh'], 6)).toEqual([2, 4]);
    expect(shareInputTokens(['a', 'b', 'c'], 4)).toEqual([2, 1, 1]);
    expect(shareInputTokens(['abcd', [1, 2, 3]], 4)).toEqual([1, 3]);
    for (const total of [0, 1, 7, 1000]) expect(shareInputTokens(['x', 'a longer input text', [5, 6]], total).reduce((a, b) => a + b, 0)).toBe(total);
  });
});

