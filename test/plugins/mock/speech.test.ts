import { describe, expect, it } from 'vitest';
import { readMp3 } from '../../../plugins/mock/mp3.ts';
import { SAMPLE_RATE, speak, speechDuration } from '../../../plugins/mock/speech.ts';
import { transcribe } from '../../../plugins/mock/transcribe.ts';
import { readWav } from '../../../plugins/mock/wav.ts';
import { GatewayError } from '../../../src/errors/index.ts';

type Format = 'wav' | 'pcm' | 'mp3' | 'flac' | 'opus' | 'aac';
const call = (input: string, format: Format, speed = 1) => ({ model: 'tts', input, voice: 'alloy', format, speed, signal: new AbortController().signal });

describe('mock/tts', () => {
  it('speaks WAV whose duration follows the input length and the speed', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const normal = readWav((await speak(call(text, 'wav'))).data)!;
    expect(normal.durationSeconds).toBeCloseTo(speechDuration(text, 1), 3);
    expect(normal.durationSeconds).toBeCloseTo(text.length * 0.06, 3);
    const twice = readWav((await speak(call(text + ' ' + text, 'wav'))).data)!;
    expect(twice.durationSeconds).toBeGreaterThan(normal.durationSeconds * 1.9);
    const fast = readWav((await speak(call(text, 'wav', 2))).data)!;
    expect(fast.durationSeconds).toBeCloseTo(normal.durationSeconds / 2, 2);
    expect(normal.comment).toBe(text);
  });

  it('writes raw 24 kHz 16-bit mono PCM with no header', async () => {
    const result = await speak(call('hello world', 'pcm'));
    expect(result.contentType).toBe('audio/pcm');
    expect(result.data.length).toBe(Math.round(speechDuration('hello world', 1) * SAMPLE_RATE) * 2);
    expect(Buffer.from(result.data).toString('latin1', 0, 4)).not.toBe('RIFF');
    // Not silence: some samples are far from zero.
    const samples = new Int16Array(result.data.buffer, result.data.byteOffset, result.data.length / 2);
    expect(Math.max(...samples)).toBeGreaterThan(5000);
  });

  it('speaks MP3 (the default): an ID3 tag with the text, then MPEG-2 Layer III frames as long as the speech', async () => {
    const text = 'Über the gateway, every request finds its provider.';
    const result = await speak(call(text, 'mp3'));
    expect(result.contentType).toBe('audio/mpeg');
    const bytes = Buffer.from(result.data);
    expect(bytes.toString('latin1', 0, 3)).toBe('ID3');
    const info = readMp3(bytes)!;
    expect(info.sampleRate).toBe(SAMPLE_RATE);
    expect(info.comment).toBe(text);
    // The encoder pads a frame or two at each end.
    expect(info.durationSeconds).toBeGreaterThanOrEqual(speechDuration(text, 1));
    expect(info.durationSeconds).toBeLessThan(speechDuration(text, 1) + 0.15);
    // The first audio frame right after the tag: 11 sync bits, MPEG-2, Layer III.
    const tagEnd = 10 + ((bytes[6] << 21) | (bytes[7] << 14) | (bytes[8] << 7) | bytes[9]);
    expect(bytes[tagEnd]).toBe(0xff);
    expect(bytes[tagEnd + 1] & 0xfe).toBe(0xf2);
    // mock/whisper reads it back.
    const heard = transcribe({ model: 'whisper', task: 'transcribe', file: { data: result.data, filename: 'speech.mp3', contentType: 'audio/mpeg' }, signal: new AbortController().signal } as never);
    expect(heard.text).toBe(text);
    expect(heard.duration).toBeCloseTo(info.durationSeconds, 2);
  });

  it('refuses opus, aac and flac with a 422 naming response_format', async () => {
    for (const format of ['opus', 'aac', 'flac'] as const) {
      const error = await speak(call('hi', format)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(422);
      expect((error as GatewayError).message).toBe(`mock/tts cannot encode ${format}; ask for response_format "mp3", "wav" or "pcm".`);
      expect((error as GatewayError).details).toEqual({ fields: { response_format: expect.stringContaining('mp3') } });
    }
  });
});
