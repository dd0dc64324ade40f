import { describe, expect, it } from 'vitest';
import { SAMPLE_RATE, speak, speechDuration } from '../../../plugins/mock/speech.ts';
import { readWav } from '../../../plugins/mock/wav.ts';
import { GatewayError } from '../../../src/errors/index.ts';

const call = (input: string, format: 'wav' | 'pcm' | 'mp3' | 'flac', speed = 1) => ({ model: 'tts', input, voice: 'alloy', format, speed, signal: new AbortController().signal });

describe('mock/tts', () => {
  it('speaks WAV whose duration follows the input length and the speed', () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const normal = readWav(speak(call(text, 'wav')).data)!;
    expect(normal.durationSeconds).toBeCloseTo(speechDuration(text, 1), 3);
    expect(normal.durationSeconds).toBeCloseTo(text.length * 0.06, 3);
    const twice = readWav(speak(call(text + ' ' + text, 'wav')).data)!;
    expect(twice.durationSeconds).toBeGreaterThan(normal.durationSeconds * 1.9);
    const fast = readWav(speak(call(text, 'wav', 2)).data)!;
    expect(fast.durationSeconds).toBeCloseTo(normal.durationSeconds / 2, 2);
    expect(normal.comment).toBe(text);
  });

  it('writes raw 24 kHz 16-bit mono PCM with no header', () => {
    const result = speak(call('hello world', 'pcm'));
    expect(result.contentType).toBe('audio/pcm');
    expect(result.data.length).toBe(Math.round(speechDuration('hello world', 1) * SAMPLE_RATE) * 2);
    expect(Buffer.from(result.data).toString('latin1', 0, 4)).not.toBe('RIFF');
    // Not silence: some samples are far from zero.
    const samples = new Int16Array(result.data.buffer, result.data.byteOffset, result.data.length / 2);
    expect(Math.max(...samples)).toBeGreaterThan(5000);
  });

  it('refuses formats it cannot encode with a 422 naming response_format', () => {
    for (const format of ['mp3', 'flac'] as const) {
      try {
        speak(call('hi', format));
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        expect((error as GatewayError).status).toBe(422);
        expect((error as GatewayError).message).toContain(`cannot encode ${format}`);
        expect((error as GatewayError).details).toEqual({ fields: { response_format: expect.stringContaining('wav') } });
      }
    }
  });
});
