import type { TranscriptionResult, TranscriptSegment } from '../plugin-kit/index.ts';
import { jsonRecord, writeSse } from '../sse/index.ts';
import type { TranscriptFormat } from './decode-audio-request.ts';
import { NoMediaOutput } from './no-media-output.ts';

/** A rendered transcript: body text and its Content-Type. */
export interface RenderedTranscript {
  body: string;
  contentType: string;
}

export interface RenderOptions {
  task: 'transcribe' | 'translate';
  /** Include word timestamps in verbose_json. */
  words: boolean;
  /** Include segments in verbose_json. */
  segments: boolean;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The formats rendered from the segments: a result of segments without its text still answers them. */
const FROM_SEGMENTS: ReadonlySet<TranscriptFormat> = new Set(['verbose_json', 'srt', 'vtt']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isTime = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isSegment = (value: unknown): boolean => isObject(value) && isTime(value.start) && isTime(value.end) && typeof value.text === 'string';
const isWord = (value: unknown): boolean => isObject(value) && isTime(value.start) && isTime(value.end) && typeof value.word === 'string';

/**
 * That a transcription result holds what the client's answer is made of: its text (json, text, the
 * stream), or its text or segments (verbose_json, srt, vtt), and segments and words, when given,
 * as lists of their shape. A TypeError saying what is missing otherwise: a plugin broke the media
 * contract, and the exchange answers 502 before anything is charged.
 */
export function checkTranscript(result: unknown, format: TranscriptFormat, stream: boolean): asserts result is TranscriptionResult {
  if (!isObject(result)) throw new TypeError('a transcription result that is no object');
  if (result.segments !== undefined && !(Array.isArray(result.segments) && result.segments.every(isSegment))) throw new TypeError('transcription segments that are not a list of {start, end, text}');
  if (result.words !== undefined && !(Array.isArray(result.words) && result.words.every(isWord))) throw new TypeError('transcription words that are not a list of {word, start, end}');
  if (typeof result.text === 'string') return;
  const fromSegments = !stream && FROM_SEGMENTS.has(format);
  if (fromSegments && Array.isArray(result.segments) && result.segments.length > 0) return;
  // Neither text nor a segment (`{}`): the provider returned no transcript (NoMediaOutput), not a broken plugin.
  if (result.segments === undefined || (Array.isArray(result.segments) && result.segments.length === 0)) throw new NoMediaOutput('transcript');
  throw new TypeError(fromSegments ? 'a transcription result with neither its text nor segments' : 'a transcription result without its text');
}

/** The text of a result, or its segments' texts joined when the provider sent segments only (a verbose_json answer always has its text). */
function textOf(result: TranscriptionResult, segments: readonly TranscriptSegment[]): string {
  return typeof result.text === 'string' ? result.text : segments.map((segment) => segment.text.trim()).join(' ');
}

/** `HH:MM:SS<sep>mmm`, as SubRip (`,`) and WebVTT (`.`) write times. */
export function formatTimestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** The provider's segments, or one segment spanning the whole text. */
export function segmentsOf(result: TranscriptionResult): TranscriptSegment[] {
  if (result.segments && result.segments.length > 0) return result.segments;
  const text = result.text ?? '';
  if (text.trim() === '') return [];
  return [{ start: 0, end: result.duration ?? 0, text }];
}

/** SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each. */
export function renderSrt(segments: TranscriptSegment[]): string {
  return segments
    .map((s, i) => `${i + 1}\n${formatTimestamp(s.start, ',')} --> ${formatTimestamp(s.end, ',')}\n${s.text.trim()}\n\n`)
    .join('');
}

/** WebVTT: the `WEBVTT` header, then cues with `.` before the milliseconds. */
export function renderVtt(segments: TranscriptSegment[]): string {
  return `WEBVTT\n\n${segments.map((s) => `${formatTimestamp(s.start, '.')} --> ${formatTimestamp(s.end, '.')}\n${s.text.trim()}\n\n`).join('')}`;
}

/** OpenAI's verbose_json shape (wire formats §6.5), with neutral values for what we cannot know. */
export function verboseJson(result: TranscriptionResult, options: RenderOptions): Record<string, unknown> {
  const segments = segmentsOf(result);
  const duration = result.duration ?? segments.at(-1)?.end ?? 0;
  const out: Record<string, unknown> = {
    task: options.task,
    language: options.task === 'translate' ? 'english' : (result.language ?? 'english'),
    duration: round3(duration),
    text: textOf(result, segments),
  };
  if (options.segments) {
    out.segments = segments.map((s, id) => ({
      id,
      seek: 0,
      start: round3(s.start),
      end: round3(s.end),
      text: s.text.startsWith(' ') ? s.text : ` ${s.text}`,
      tokens: [],
      temperature: 0,
      avg_logprob: 0,
      compression_ratio: 1,
      no_speech_prob: 0,
    }));
  }
  if (options.words && result.words) out.words = result.words.map((w) => ({ word: w.word, start: round3(w.start), end: round3(w.end) }));
  out.usage = { type: 'duration', seconds: Math.ceil(duration) };
  return out;
}

/** Renders a transcription in the format the client asked for. */
export function renderTranscript(result: TranscriptionResult, format: TranscriptFormat, options: RenderOptions): RenderedTranscript {
  switch (format) {
    case 'json': {
      const body: Record<string, unknown> = { text: result.text };
      if (result.duration !== undefined) body.usage = { type: 'duration', seconds: Math.ceil(result.duration) };
      return { body: JSON.stringify(body), contentType: 'application/json' };
    }
    case 'verbose_json':
      return { body: JSON.stringify(verboseJson(result, options)), contentType: 'application/json' };
    case 'text':
      return { body: `${result.text}\n`, contentType: 'text/plain; charset=utf-8' };
    case 'srt':
      return { body: renderSrt(segmentsOf(result)), contentType: 'application/x-subrip; charset=utf-8' };
    case 'vtt':
      return { body: renderVtt(segmentsOf(result)), contentType: 'text/vtt; charset=utf-8' };
  }
}

/**
 * OpenAI's transcription stream (`stream: true`) as SSE text: `transcript.text.delta` events,
 * a word each with its leading space, that join into the text, then `transcript.text.done`
 * with the text and (when the provider said how long the audio was) the duration usage.
 */
export function renderTranscriptEvents(result: TranscriptionResult): string {
  // checkTranscript passed: a stream's result has its text.
  const text = result.text ?? '';
  const pieces = text.match(/\s*\S+|\s+$/g) ?? [];
  const done: Record<string, unknown> = { type: 'transcript.text.done', text };
  if (result.duration !== undefined) done.usage = { type: 'duration', seconds: Math.ceil(result.duration) };
  return writeSse([...pieces.map((delta) => jsonRecord('transcript.text.delta', { type: 'transcript.text.delta', delta })), jsonRecord('transcript.text.done', done)]);
}
