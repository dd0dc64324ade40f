import { describe, expect, it } from 'vitest';
import { formatTimestamp, renderSrt, renderTranscript, renderVtt, segmentsOf } from '../../src/media/render-transcript.ts';

const result = {
  text: 'Hello there. General Kenobi.',
  language: 'english',
  duration: 3725.5,
  segments: [
    { start: 0, end: 1.2345, text: 'Hello there.' },
    { start: 3723.9, end: 3725.5, text: ' General Kenobi.' },
  ],
  words: [{ word: 'Hello', start: 0, end: 0.5 }],
};
const options = { task: 'transcribe' as const, words: false, segments: true };

describe('transcript rendering', () => {
  it('formats SubRip and WebVTT times with hours and milliseconds', () => {
    expect(formatTimestamp(0, ',')).toBe('00:00:00,000');
    expect(formatTimestamp(3723.9, ',')).toBe('01:02:03,900');
    expect(formatTimestamp(1.2345, '.')).toBe('00:00:01.235');
    expect(formatTimestamp(-1, '.')).toBe('00:00:00.000');
  });

  it('renders SRT: numbered cues, comma milliseconds, blank line after each', () => {
    expect(renderSrt(result.segments)).toBe('1\n00:00:00,000 --> 00:00:01,235\nHello there.\n\n2\n01:02:03,900 --> 01:02:05,500\nGeneral Kenobi.\n\n');
  });

  it('renders VTT: the WEBVTT header and dot milliseconds', () => {
    expect(renderVtt(result.segments)).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.235\nHello there.\n\n01:02:03.900 --> 01:02:05.500\nGeneral Kenobi.\n\n');
  });

  it('gives each format its Content-Type and body', () => {
    const json = renderTranscript(result, 'json', options);
    expect(json.contentType).toBe('application/json');
    expect(JSON.parse(json.body)).toEqual({ text: result.text, usage: { type: 'duration', seconds: 3726 } });
    expect(renderTranscript(result, 'text', options)).toEqual({ body: `${result.text}\n`, contentType: 'text/plain; charset=utf-8' });
    expect(renderTranscript(result, 'srt', options).contentType).toBe('application/x-subrip; charset=utf-8');
    expect(renderTranscript(result, 'vtt', options).contentType).toBe('text/vtt; charset=utf-8');
  });

  it('renders verbose_json in OpenAI shape, words only when asked', () => {
    const verbose = JSON.parse(renderTranscript(result, 'verbose_json', options).body);
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'english', duration: 3725.5, text: result.text, usage: { type: 'duration', seconds: 3726 } });
    expect(verbose.segments).toHaveLength(2);
    expect(verbose.segments[0]).toEqual({
      id: 0, seek: 0, start: 0, end: 1.235, text: ' Hello there.', tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0,
    });
    expect(verbose.words).toBeUndefined();
    const withWords = JSON.parse(renderTranscript(result, 'verbose_json', { ...options, words: true }).body);
    expect(withWords.words).toEqual([{ word: 'Hello', start: 0, end: 0.5 }]);
    const translated = JSON.parse(renderTranscript({ ...result, language: 'german' }, 'verbose_json', { ...options, task: 'translate' }).body);
    expect(translated).toMatchObject({ task: 'translate', language: 'english' });
  });

  it('falls back to one segment spanning the audio when the provider gave none', () => {
    expect(segmentsOf({ text: 'only text', duration: 2 })).toEqual([{ start: 0, end: 2, text: 'only text' }]);
    expect(segmentsOf({ text: '  ' })).toEqual([]);
    expect(renderVtt([])).toBe('WEBVTT\n\n');
  });
});
