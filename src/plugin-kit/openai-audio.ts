import type { ProviderInstance, TranscriptionCall, TranscriptionResult } from './types.ts';
import { mediaPath, type OpenAIMediaContext } from './openai-images.ts';
import { readOk, readOkJson } from './read-upstream.ts';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * What to ask the upstream for: json carries the text; srt, vtt and verbose_json need
 * segments, so those ask for verbose_json and the gateway renders the client's format.
 */
function upstreamFormat(call: TranscriptionCall): 'json' | 'verbose_json' {
  return call.responseFormat === 'json' || call.responseFormat === 'text' ? 'json' : 'verbose_json';
}

/** An OpenAI transcription body (json or verbose_json) → the plugin-kit result. */
export function toTranscription(body: Record<string, unknown>): TranscriptionResult {
  const segments = Array.isArray(body.segments)
    ? (body.segments as Array<Record<string, unknown>>).map((s) => ({ start: num(s.start) ?? 0, end: num(s.end) ?? 0, text: typeof s.text === 'string' ? s.text.trim() : '' }))
    : undefined;
  const words = Array.isArray(body.words)
    ? (body.words as Array<Record<string, unknown>>).map((w) => ({ word: String(w.word ?? ''), start: num(w.start) ?? 0, end: num(w.end) ?? 0 }))
    : undefined;
  const usage = body.usage as Record<string, unknown> | undefined;
  const duration = num(body.duration) ?? (usage?.type === 'duration' ? num(usage.seconds) : undefined);
  const tokens = usage?.type === 'tokens' ? { inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) } : undefined;
  return {
    // `{}` is no transcript (the gateway's 502 naming the provider), not `{"text": ""}`, a transcript of silence.
    text: typeof body.text === 'string' ? body.text : undefined,
    language: typeof body.language === 'string' ? body.language : undefined,
    duration,
    segments,
    words,
    ...(tokens ? { usage: tokens } : {}),
  };
}

/** POST {baseURL}/audio/speech, /audio/transcriptions and /audio/translations. */
export function openaiAudioCalls(ctx: OpenAIMediaContext): NonNullable<ProviderInstance['audio']> {
  return {
    async speech(call) {
      const body: Record<string, unknown> = { model: call.model, input: call.input, voice: call.voice, response_format: call.format, speed: call.speed };
      if (call.instructions !== undefined) body.instructions = call.instructions;
      const response = await ctx.client.request({
        method: 'POST',
        path: mediaPath(ctx, '/audio/speech', call.model),
        headers: { ...ctx.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: call.signal,
      });
      const { bytes, contentType } = await readOk(response);
      return { data: bytes, contentType };
    },
    async transcribe(call) {
      const form = new FormData();
      form.append('file', new Blob([call.file.data as Uint8Array<ArrayBuffer>], { type: call.file.contentType }), call.file.filename);
      form.append('model', call.model);
      const format = upstreamFormat(call);
      form.append('response_format', format);
      if (call.task === 'transcribe' && call.language) form.append('language', call.language);
      if (call.prompt !== undefined) form.append('prompt', call.prompt);
      if (call.temperature !== undefined) form.append('temperature', String(call.temperature));
      if (format === 'verbose_json' && call.task === 'transcribe') {
        for (const g of call.timestampGranularities ?? []) form.append('timestamp_granularities[]', g);
      }
      const response = await ctx.client.request({
        method: 'POST',
        path: mediaPath(ctx, call.task === 'translate' ? '/audio/translations' : '/audio/transcriptions', call.model),
        headers: { ...ctx.headers, accept: 'application/json' },
        body: form,
        signal: call.signal,
      });
      return toTranscription(await readOkJson(response));
    },
  };
}
