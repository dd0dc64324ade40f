import { createHash } from 'node:crypto';
import { GatewayError, type SpeechCall, type SpeechResult } from 'gateway/plugin-kit';
import { encodeMp3 } from './mp3.ts';
import { encodeWav } from './wav.ts';

/** OpenAI's PCM output: 24 kHz, 16-bit signed little-endian, mono. */
export const SAMPLE_RATE = 24_000;

/** Seconds of speech per input character at speed 1 (about 150 words a minute). */
export const SECONDS_PER_CHAR = 0.06;

const VOICE_PITCH: Record<string, number> = {
  alloy: 180, echo: 120, fable: 170, onyx: 100, nova: 220, shimmer: 240,
  ash: 130, ballad: 150, coral: 210, sage: 190, verse: 160, marin: 200, cedar: 115,
};

/** How long mock/tts speaks `input` at `speed`, in seconds. */
export function speechDuration(input: string, speed: number): number {
  return Math.max(0.3, input.length * SECONDS_PER_CHAR) / speed;
}

function wordPitch(word: string, base: number): number {
  const h = createHash('sha256').update(word.toLowerCase()).digest();
  return base * (1 + (h[0] % 8) / 16);
}

/** Renders `input` as one soft tone per word (with a pause after each) at the voice's pitch. */
export function synthesize(input: string, voice: string, speed: number): Buffer {
  const total = Math.round(speechDuration(input, speed) * SAMPLE_RATE);
  const pcm = Buffer.alloc(total * 2);
  const words = input.split(/\s+/).filter(Boolean);
  const weights = words.map((w) => w.length + 1);
  const sum = weights.reduce((a, b) => a + b, 0) || 1;
  const base = VOICE_PITCH[voice] ?? 180;
  let start = 0;
  words.forEach((word, i) => {
    const length = Math.round((weights[i] / sum) * total);
    const voiced = Math.floor(length * 0.8);
    const step = (2 * Math.PI * wordPitch(word, base)) / SAMPLE_RATE;
    const fade = Math.max(1, Math.min(240, voiced >> 2));
    for (let s = 0; s < voiced && start + s < total; s++) {
      const envelope = Math.min(1, s / fade, (voiced - s) / fade);
      pcm.writeInt16LE(Math.round(Math.sin(s * step) * envelope * 9000), (start + s) * 2);
    }
    start += length;
  });
  return pcm;
}

/** What mock/tts encodes; opus, aac and flac have no maintained pure-JS encoder, so they are refused. */
export const MOCK_SPEECH_FORMATS = ['mp3', 'wav', 'pcm'] as const;

/** mock/tts: real MP3 (the API's default) or WAV, each carrying the text for mock/whisper, or raw PCM. */
export async function speak(call: SpeechCall): Promise<SpeechResult> {
  if (call.format !== 'mp3' && call.format !== 'wav' && call.format !== 'pcm') {
    const message = `mock/tts cannot encode ${call.format}; ask for response_format "mp3", "wav" or "pcm".`;
    throw new GatewayError('validation_error', message, { details: { fields: { response_format: message } } });
  }
  const pcm = synthesize(call.input, call.voice, call.speed);
  if (call.format === 'pcm') return { data: pcm, contentType: 'audio/pcm' };
  if (call.format === 'mp3') return { data: await encodeMp3(pcm, SAMPLE_RATE, call.input), contentType: 'audio/mpeg' };
  return { data: encodeWav(pcm, SAMPLE_RATE, call.input), contentType: 'audio/wav' };
}
