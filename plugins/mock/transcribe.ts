import { createHash } from 'node:crypto';
import type { TranscriptionCall, TranscriptionResult, TranscriptSegment } from 'gateway/plugin-kit';
import { readMp3 } from './mp3.ts';
import { readWav } from './wav.ts';

const WORDS = [
  'the', 'gateway', 'routes', 'every', 'request', 'to', 'a', 'provider', 'and', 'records', 'media',
  'quietly', 'bright', 'signal', 'river', 'morning', 'library', 'sound', 'image', 'through', 'open', 'model',
  'under', 'light', 'clear', 'voice', 'small', 'garden', 'window', 'stone', 'north', 'paper', 'music',
];

const LANGUAGES: Record<string, string> = {
  en: 'english', de: 'german', fr: 'french', es: 'spanish', it: 'italian', pt: 'portuguese', nl: 'dutch',
  ja: 'japanese', zh: 'chinese', ko: 'korean', ru: 'russian', pl: 'polish', sv: 'swedish', tr: 'turkish',
};

/** Words a minute of unknown audio is assumed to hold. */
const WORDS_PER_SECOND = 2.5;
/** Bytes a second assumed for compressed uploads (128 kbit/s). */
const BYTES_PER_SECOND = 16_000;

/** Deterministic filler text for audio that carries no embedded transcript. */
function inventText(bytes: Uint8Array, seconds: number): string {
  const digest = createHash('sha256').update(bytes).digest();
  const count = Math.min(2000, Math.max(3, Math.round(seconds * WORDS_PER_SECOND)));
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(WORDS[(digest[i % 32] + i * 7) % WORDS.length]);
  const sentences: string[] = [];
  for (let i = 0; i < words.length; i += 8) {
    const part = words.slice(i, i + 8).join(' ');
    sentences.push(part[0].toUpperCase() + part.slice(1) + '.');
  }
  return sentences.join(' ');
}

/** Splits text into sentence-sized pieces of at most 12 words. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+/).filter(Boolean)) {
    const words = sentence.split(/\s+/);
    for (let i = 0; i < words.length; i += 12) out.push(words.slice(i, i + 12).join(' '));
  }
  return out;
}

/** Spreads pieces of text over `duration` in proportion to their length. */
function timeline<T extends string>(items: T[], duration: number): Array<{ text: T; start: number; end: number }> {
  const total = items.reduce((sum, item) => sum + item.length + 1, 0) || 1;
  let at = 0;
  return items.map((text) => {
    const start = at;
    at += ((text.length + 1) / total) * duration;
    return { text, start: round(start), end: round(at) };
  });
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * mock/whisper: a WAV or MP3 made by mock/tts transcribes to its own text (LIST/INFO, ID3 COMM);
 * other audio gets deterministic filler whose length follows the audio's duration.
 */
export function transcribe(call: TranscriptionCall): TranscriptionResult {
  const audio = readWav(call.file.data) ?? readMp3(call.file.data);
  const duration = round(audio ? audio.durationSeconds : call.file.data.byteLength / BYTES_PER_SECOND);
  const text = (audio?.comment ?? inventText(call.file.data, duration)).trim();
  const segments: TranscriptSegment[] = timeline(pieces(text), duration);
  const words = timeline(text.split(/\s+/).filter(Boolean), duration).map((w) => ({ word: w.text.replace(/[.,!?;:]+$/, ''), start: w.start, end: w.end }));
  const code = call.task === 'translate' ? 'en' : (call.language ?? 'en').toLowerCase();
  return { text, language: LANGUAGES[code] ?? code, duration, segments, words };
}
