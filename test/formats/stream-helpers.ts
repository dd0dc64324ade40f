/**
 * Stream test utilities shared by the format tests and the conversion matrix:
 * feed SSE text through SseParser split at arbitrary byte boundaries, run decoders and
 * encoders, and read encoder output back as events.
 */
import { readFileSync } from 'node:fs';
import type { StreamPart } from '../../src/ir/types.ts';
import type { FormatCodec, StreamDecoder, StreamEncoder } from '../../src/formats/types.ts';
import { SseParser, parseSse, writeSse, type SseRecord } from '../../src/sse/index.ts';

/** The request ids a stream encoder puts into its error record (`createStreamEncoder(request, STREAM_IDS)`). */
export const STREAM_IDS = { requestId: 'req_test', correlationId: 'req_test' } as const;

/** A fixture under test/fixtures (e.g. `chat/stream-text-usage.sse.txt`) as text. */
export function readFixture(path: string): string {
  return readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
}

/** A JSON fixture under test/fixtures. */
export function readJsonFixture<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFixture(path)) as T;
}

/**
 * SSE text → records through SseParser, fed as UTF-8 bytes in chunks of `splitEvery` bytes
 * (0 = all at once). Chunks cut through multi-byte characters and `\r\n` pairs on purpose.
 */
export function sseRecords(text: string, splitEvery = 0): SseRecord[] {
  const bytes = new TextEncoder().encode(text);
  const parser = new SseParser();
  const out: SseRecord[] = [];
  const size = splitEvery > 0 ? splitEvery : bytes.length || 1;
  for (let at = 0; at < bytes.length; at += size) out.push(...parser.push(bytes.subarray(at, at + size)));
  out.push(...parser.end());
  return out;
}

/** Runs SSE text through a stream decoder (or a codec's new decoder) and returns every part, `end()` included. */
export function runStream(decoder: StreamDecoder | FormatCodec, sseText: string, splitEvery = 0): StreamPart[] {
  const live = 'createStreamDecoder' in decoder ? decoder.createStreamDecoder() : decoder;
  const parts = sseRecords(sseText, splitEvery).flatMap((record) => live.push(record));
  return [...parts, ...live.end()];
}

/** Encodes one part and frames its records as SSE text (what the relay writes). */
export function encodePart(encoder: StreamEncoder, part: StreamPart): string {
  return writeSse(encoder.encode(part));
}

/** Encodes parts one by one and joins the SSE text. */
export function encodeAll(encoder: StreamEncoder, parts: StreamPart[]): string {
  return parts.map((part) => encodePart(encoder, part)).join('');
}

export interface SseEvent {
  event: string | undefined;
  /** Parsed JSON, or the raw text when it is not JSON (`[DONE]`). */
  data: any;
}

/** Encoder output → events with parsed data. */
export function parseEvents(sse: string): SseEvent[] {
  return parseSse(sse).map((record) => {
    try {
      return { event: record.event, data: JSON.parse(record.data) };
    } catch {
      return { event: record.event, data: record.data };
    }
  });
}

/** Joins the text of all parts of one kind, for compact assertions. */
export function joinText(parts: StreamPart[], type: 'text-delta' | 'reasoning-delta' | 'refusal-delta'): string {
  return parts.flatMap((part) => (part.type === type ? [part.text] : [])).join('');
}

/** Joins the argument fragments of one tool call (by IR index). */
export function joinArguments(parts: StreamPart[], index: number): string {
  return parts.flatMap((part) => (part.type === 'tool-call-delta' && part.index === index ? [part.argumentsDelta] : [])).join('');
}

/** Part types in order, for shape assertions. */
export function partTypes(parts: StreamPart[]): string[] {
  return parts.map((part) => part.type);
}

/** Upstream stream in one format → client stream in another, through the IR. */
export function translateStream(upstream: FormatCodec, client: FormatCodec, request: Parameters<FormatCodec['createStreamEncoder']>[0], sseText: string, splitEvery = 0): string {
  return encodeAll(client.createStreamEncoder(request, STREAM_IDS), runStream(upstream, sseText, splitEvery));
}
