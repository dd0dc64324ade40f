import { readFileSync } from 'node:fs';
import type { StreamPart } from '../../../src/ir/types.ts';
import { SseParser, parseSse, type SseRecord } from '../../../src/sse/index.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';

/** A fixture under test/fixtures/responses as text. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/responses/${name}`, import.meta.url), 'utf8');
}

/** A fixture parsed as JSON. */
export function readJsonFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFixture(name)) as Record<string, unknown>;
}

/** Splits bytes at pseudo-random boundaries (multi-byte characters included) and parses them. */
export function recordsSplit(text: string, seed: number, maxChunk = 17): SseRecord[] {
  const bytes = new TextEncoder().encode(text);
  const parser = new SseParser();
  const out: SseRecord[] = [];
  let state = seed;
  let at = 0;
  while (at < bytes.length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % maxChunk);
    out.push(...parser.push(bytes.subarray(at, at + size)));
    at += size;
  }
  out.push(...parser.end());
  return out;
}

/** Runs an SSE fixture through SseParser (split as given) and the Responses stream decoder. */
export function decodeSse(text: string, seed = 1): StreamPart[] {
  const decoder = responsesCodec.createStreamDecoder();
  const parts = recordsSplit(text, seed).flatMap((record) => decoder.push(record));
  return [...parts, ...decoder.end()];
}

export interface EncodedEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/** Parses encoder output back into events with JSON payloads. */
export function parseEvents(sse: string): EncodedEvent[] {
  return parseSse(sse).map((record) => ({ event: record.event, data: JSON.parse(record.data) as Record<string, unknown> }));
}

/** Joins the text of all parts of one type, for compact assertions. */
export function joined(parts: StreamPart[], type: 'text-delta' | 'reasoning-delta' | 'refusal-delta'): string {
  return parts.flatMap((part) => (part.type === type ? [part.text] : [])).join('');
}
