import type { H3Event } from 'h3';
import { AUDIO_CONTENT_TYPES, NoMediaOutput, checkTranscript, decodeSpeechRequest, decodeTranscriptionForm, readAudioSeconds, renderSpeechEvents, renderTranscript, renderTranscriptEvents } from '../../media/index.ts';
import { SSE_CONTENT_TYPE } from '../../sse/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { requestState } from '../context.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { readMultipart } from '../read-multipart.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';
import { mediaCallOf } from './media-shared.ts';
import { runMediaExchange } from '../../exchange/index.ts';

const SPEECH = '/v1/audio/speech';
const TRANSCRIPTIONS = '/v1/audio/transcriptions';
const TRANSLATIONS = '/v1/audio/translations';

/** A complete response with the headers already set on the event (request id, rate limits). */
function respond(event: H3Event, body: Uint8Array | string, contentType: string): Response {
  const headers = new Headers(event.res.headers);
  headers.set('content-type', contentType);
  headers.set('x-request-id', requestState(event).ids.requestId);
  return new Response(body as string | Uint8Array<ArrayBuffer>, { status: 200, headers });
}

/** POST /v1/audio/speech (JSON → audio bytes). */
function speechHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<Response> => {
    const auth = authenticateApiKey(event, deps);
    const passing = passLimitsFirst(event, deps, auth, SPEECH);
    if (passing instanceof Promise) await passing;
    const { body } = await readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'inference')));
    const request = decodeSpeechRequest(body);
    const speechCharacters = [...request.input].length;
    const estimatedInput = Math.ceil(request.input.length / 4);
    const { value: outcome } = await runMediaExchange(deps, {
      ...mediaCallOf(event, deps, auth, SPEECH),
      task: 'speech',
      model: request.model,
      reserve: { speechCharacters },
      run: (model, signal) =>
        model.provider.instance.audio!.speech!({
          model: model.upstreamId,
          input: request.input,
          voice: request.voice,
          format: request.format,
          speed: request.speed,
          instructions: request.instructions,
          signal,
        }),
      used: (result) => {
        // Read before the charge: a result without audio bytes (SpeechResult's Uint8Array; an object with a byteLength is not) is the provider's failure (502, nothing charged).
        if (!(result?.data instanceof Uint8Array)) throw new TypeError('a speech result without audio bytes (a Uint8Array)');
        if (result.data.byteLength === 0) throw new NoMediaOutput('audio');
        return { estimatedInput, media: { speechCharacters } };
      },
      answer: (served) => served,
    });
    if (request.streamFormat === 'sse') return respond(event, renderSpeechEvents(outcome.value.data, estimatedInput), SSE_CONTENT_TYPE);
    return respond(event, outcome.value.data, outcome.value.contentType || AUDIO_CONTENT_TYPES[request.format]);
  };
}

/** POST /v1/audio/transcriptions and /v1/audio/translations (multipart → json, text, srt, vtt or verbose_json). */
function transcriptionHandler(deps: ServerDeps, task: 'transcribe' | 'translate') {
  const route = task === 'transcribe' ? TRANSCRIPTIONS : TRANSLATIONS;
  return async (event: H3Event): Promise<Response> => {
    const auth = authenticateApiKey(event, deps);
    // The key's rate limit and slot before the multipart body is read (issue 27), like the JSON routes.
    const passing = passLimitsFirst(event, deps, auth, route);
    if (passing instanceof Promise) await passing;
    const form = await readMultipart(event, bodyLimit(deps, 'media'));
    const request = await decodeTranscriptionForm(form, task);
    // The hold rule: the duration the file's header states, at the model's audioMinute price. A
    // file it cannot be read from holds nothing: it needs something left, charged at most that.
    const audioSeconds = await readAudioSeconds(request.file.data);
    const { value: rendered } = await runMediaExchange(deps, {
      ...mediaCallOf(event, deps, auth, route),
      task: task === 'transcribe' ? 'transcription' : 'translation',
      model: request.model,
      reserve: audioSeconds === undefined ? undefined : { audioSeconds },
      run: (model, signal) =>
        model.provider.instance.audio!.transcribe!({
          model: model.upstreamId,
          file: request.file,
          language: request.language,
          prompt: request.prompt,
          temperature: request.temperature,
          responseFormat: request.responseFormat,
          timestampGranularities: request.wordTimestamps ? (request.segmentTimestamps ? ['segment', 'word'] : ['word']) : undefined,
          task,
          signal,
        }),
      used: (result) => {
        // Read before the charge: a result the client's answer cannot be made of is the provider's failure (502, nothing charged).
        checkTranscript(result, request.responseFormat, request.stream);
        return { usage: result.usage, estimatedInput: 0, media: { audioSeconds: result.duration ?? 0 } };
      },
      answer: (served) =>
        request.stream
          ? { body: renderTranscriptEvents(served.value), contentType: SSE_CONTENT_TYPE }
          : renderTranscript(served.value, request.responseFormat, { task, words: request.wordTimestamps, segments: request.segmentTimestamps }),
    });
    return respond(event, rendered.body, rendered.contentType);
  };
}

/** The audio routes. */
export function audioRoutes(deps: ServerDeps): RouteDef[] {
  return [
    { method: 'POST', path: SPEECH, handler: speechHandler(deps) },
    { method: 'POST', path: TRANSCRIPTIONS, handler: transcriptionHandler(deps, 'transcribe') },
    { method: 'POST', path: TRANSLATIONS, handler: transcriptionHandler(deps, 'translate') },
  ];
}
