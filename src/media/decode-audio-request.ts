import { FieldChecker, isRecord } from '../formats/index.ts';
import type { AudioFormat, SpeechCall } from '../plugin-kit/index.ts';
import { numericField } from './decode-image-request.ts';

/** Spec §8.2 limits for speech, and bounds of the other text fields (docs/limits.md). */
export const SPEECH_LIMITS = { inputChars: 4096, minSpeed: 0.25, maxSpeed: 4.0, instructionsChars: 4096, modelChars: 256, voiceChars: 256 } as const;

/** Bounds of a transcription or translation form's text fields (docs/limits.md). */
export const TRANSCRIPTION_LIMITS = { promptChars: 4096, modelChars: 256 } as const;

/** The six voices of the spec, then the newer OpenAI ones (wire formats §6.4). */
export const VOICES = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer', 'ash', 'ballad', 'coral', 'sage', 'verse', 'marin', 'cedar'] as const;

export const AUDIO_FORMATS: readonly AudioFormat[] = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];

/** Content-Type per speech format (wire formats §6.4). */
export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** A validated speech request: the provider call without its signal, and how the answer is framed. */
export type SpeechRequest = Omit<SpeechCall, 'signal'> & {
  /** `sse`: the audio as OpenAI's speech events; the provider is asked for the audio as usual. */
  streamFormat: 'audio' | 'sse';
};

/** Validates a speech body; 422 lists every bad field. */
export function decodeSpeechRequest(body: Record<string, unknown>): SpeechRequest {
  const check = new FieldChecker();
  const model = check.requiredString(body.model, 'model');
  if (typeof body.model === 'string' && model.trim() === '') check.fail('model', 'must not be empty');
  const input = check.requiredString(body.input, 'input');
  if (typeof body.input === 'string') {
    if (input.trim() === '') check.fail('input', 'must not be empty');
    else if ([...input].length > SPEECH_LIMITS.inputChars) check.fail('input', `must be at most ${SPEECH_LIMITS.inputChars} characters`);
  }
  let voice = '';
  // A custom voice is `{ id }` (newer OpenAI API); named voices must be known ones.
  if (isRecord(body.voice) && typeof body.voice.id === 'string' && body.voice.id !== '') voice = body.voice.id;
  else voice = check.requiredOneOf(body.voice, 'voice', VOICES) ?? '';
  const format = check.oneOf(body.response_format, 'response_format', AUDIO_FORMATS) ?? 'mp3';
  const speed = check.number(body.speed, 'speed', { min: SPEECH_LIMITS.minSpeed, max: SPEECH_LIMITS.maxSpeed }) ?? 1;
  const instructions = check.string(body.instructions, 'instructions');
  const streamFormat = check.oneOf(body.stream_format, 'stream_format', ['audio', 'sse'] as const) ?? 'audio';
  check.maxLength(body.model, 'model', SPEECH_LIMITS.modelChars);
  check.maxLength(voice, 'voice', SPEECH_LIMITS.voiceChars);
  check.maxLength(instructions, 'instructions', SPEECH_LIMITS.instructionsChars);
  check.throwIfAny();
  return { model, input, voice, format, speed, instructions, streamFormat };
}

export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export interface UploadedFile {
  data: Uint8Array;
  filename: string;
  contentType: string;
}

export interface TranscriptionRequest {
  model: string;
  file: UploadedFile;
  language?: string;
  prompt?: string;
  temperature?: number;
  responseFormat: TranscriptFormat;
  /** `word` timestamps were asked for (verbose_json only). */
  wordTimestamps: boolean;
  segmentTimestamps: boolean;
  /** Transcriptions only: answer as OpenAI's `transcript.text.*` events; the provider is asked as usual. */
  stream: boolean;
}

/** A multipart file part, read into memory (the body limit has already bounded its size). */
export async function fileField(form: FormData, name: string): Promise<UploadedFile | undefined> {
  const value = form.get(name);
  if (!value || typeof value === 'string') return undefined;
  return { data: new Uint8Array(await value.arrayBuffer()), filename: value.name || name, contentType: value.type || 'application/octet-stream' };
}

/** A text field of a multipart body (undefined when absent or a file). */
export function textField(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Validates a transcription or translation form; 422 lists every bad field. */
export async function decodeTranscriptionForm(form: FormData, task: 'transcribe' | 'translate'): Promise<TranscriptionRequest> {
  const check = new FieldChecker();
  const model = check.requiredString(textField(form, 'model'), 'model');
  if (textField(form, 'model')?.trim() === '') check.fail('model', 'must not be empty');
  const file = await fileField(form, 'file');
  if (!file) check.fail('file', form.has('file') ? 'must be a file upload' : 'is required');
  else if (file.data.byteLength === 0) check.fail('file', 'must not be empty');
  let language: string | undefined;
  if (task === 'transcribe') {
    language = check.string(textField(form, 'language'), 'language');
    if (language !== undefined && !/^[A-Za-z]{2,3}$/.test(language)) check.fail('language', 'must be an ISO-639-1 code such as en');
  }
  const prompt = check.string(textField(form, 'prompt'), 'prompt');
  check.maxLength(prompt, 'prompt', TRANSCRIPTION_LIMITS.promptChars);
  check.maxLength(textField(form, 'model'), 'model', TRANSCRIPTION_LIMITS.modelChars);
  const responseFormat = check.oneOf(textField(form, 'response_format'), 'response_format', TRANSCRIPT_FORMATS) ?? 'json';
  const temperature = check.number(numericField(textField(form, 'temperature')), 'temperature', { min: 0, max: 1 });
  const granularities = [...form.getAll('timestamp_granularities[]'), ...form.getAll('timestamp_granularities')].filter((v): v is string => typeof v === 'string');
  for (const g of granularities) if (g !== 'word' && g !== 'segment') check.fail('timestamp_granularities', 'must be word or segment');
  // Translations have no stream in OpenAI's API; there the field is ignored, as before.
  const streamText = task === 'transcribe' ? textField(form, 'stream') : undefined;
  if (streamText !== undefined && streamText !== 'true' && streamText !== 'false') check.fail('stream', 'must be true or false');
  check.throwIfAny();
  return {
    model,
    file: file!,
    language: language?.toLowerCase(),
    prompt,
    temperature,
    responseFormat,
    wordTimestamps: granularities.includes('word'),
    segmentTimestamps: granularities.length === 0 || granularities.includes('segment'),
    stream: streamText === 'true',
  };
}
