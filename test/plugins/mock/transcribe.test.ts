import { describe, expect, it } from 'vitest';
import { speak } from '../../../plugins/mock/speech.ts';
import { transcribe } from '../../../plugins/mock/transcribe.ts';

const signal = new AbortController().signal;
const file = (data: Uint8Array, filename = 'a.wav') => ({ data, filename, contentType: 'audio/wav' });
const call = (data: Uint8Array, task: 'transcribe' | 'translate' = 'transcribe', language?: string) => ({
  model: 'whisper', file: file(data), responseFormat: 'json' as const, task, language, signal,
});

describe('mock/whisper', () => {
  it('transcribes a mock/tts WAV back to its text, with timed segments and words', async () => {
    const text = 'First sentence here. And a second one that is a little longer than the first.';
    const wav = (await speak({ model: 'tts', input: text, voice: 'nova', format: 'wav', speed: 1, signal })).data;
    const result = transcribe(call(wav));
    expect(result.text).toBe(text);
    expect(result.language).toBe('english');
    expect(result.duration).toBeCloseTo(text.length * 0.06, 2);
    expect(result.segments!.map((s) => s.text)).toEqual(['First sentence here.', 'And a second one that is a little longer than the first.']);
    expect(result.segments![0].start).toBe(0);
    expect(result.segments!.at(-1)!.end).toBeCloseTo(result.duration!, 2);
    expect(result.words![0]).toMatchObject({ word: 'First', start: 0 });
  });

  it('invents deterministic text for other audio, longer for longer audio', () => {
    const a = new Uint8Array(64_000).fill(7);
    const b = new Uint8Array(64_000).fill(9);
    expect(transcribe(call(a)).text).toBe(transcribe(call(a)).text);
    expect(transcribe(call(a)).text).not.toBe(transcribe(call(b)).text);
    expect(transcribe(call(a)).duration).toBe(4);
    const long = transcribe(call(new Uint8Array(640_000).fill(7)));
    expect(long.text!.split(' ').length).toBeGreaterThan(transcribe(call(a)).text!.split(' ').length * 5);
  });

  it('reports the asked language when transcribing and english when translating', () => {
    const data = new Uint8Array(16_000).fill(1);
    expect(transcribe(call(data, 'transcribe', 'de')).language).toBe('german');
    expect(transcribe(call(data, 'translate', 'de')).language).toBe('english');
  });
});
