import { jsonRecord, writeSse } from '../sse/index.ts';

/**
 * Audio bytes per `speech.audio.delta` event (before base64): a multiple of 3, so no piece but the
 * last is padded and a client that joins the pieces' text and decodes once gets the same file.
 */
const DELTA_BYTES = 3 * 5461;

/**
 * OpenAI's speech stream (`stream_format: "sse"`) as SSE text: `speech.audio.delta` events whose
 * base64 `audio` pieces join into the same file the plain answer carries, then
 * `speech.audio.done` with the usage.
 */
export function renderSpeechEvents(audio: Uint8Array, inputTokens: number): string {
  const bytes = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
  const records = [];
  for (let at = 0; at < bytes.length; at += DELTA_BYTES) {
    records.push(jsonRecord('speech.audio.delta', { type: 'speech.audio.delta', audio: bytes.subarray(at, at + DELTA_BYTES).toString('base64') }));
  }
  records.push(jsonRecord('speech.audio.done', { type: 'speech.audio.done', usage: { input_tokens: inputTokens, output_tokens: 0, total_tokens: inputTokens } }));
  return writeSse(records);
}
