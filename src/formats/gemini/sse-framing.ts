import { RecordReader, SSE_CONTENT_TYPE, writeSse } from '../../sse/index.ts';
import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from '../types.ts';

const EMPTY = Buffer.alloc(0);
const LEFT_BRACE = 0x7b;
const LF_BRACE = Buffer.from('\n{');

/** An error element: Google's `{"error": {code, message, status}}`, the last record of a failed stream. */
const isError = (record: WireRecord) => record.data.startsWith('{"error"');

/**
 * Google writes the error of a stream that fails part-way bare, without `data: `; @google/genai
 * (gemini-cli) reads a `data:` error record as an answer without candidates, and tells the error
 * only from a network chunk that is the bare element alone (JSON by itself): joined to the bytes
 * before it, it failed 'Incomplete JSON segment at the end' without the upstream's words. SSE readers
 * (the AI SDK's Google provider) read only the record. So the error goes out both ways: the record,
 * then the bare element apart, in a chunk of its own.
 */
class GeminiSseWriter implements FrameWriter {
  /** The bare error element still to send apart. */
  private error: string | undefined;

  write(records: readonly WireRecord[]): string {
    const last = records.at(-1);
    if (last !== undefined && isError(last)) this.error = `${last.data}\n`;
    return writeSse(records);
  }

  passed(): void {}

  end(): string {
    return '';
  }

  apart(): string | undefined {
    const error = this.error;
    this.error = undefined;
    return error;
  }
}

/**
 * A passed error element is framed again, however the upstream framed it (bare, with a blank line
 * or not, or a `data:` record): the client gets the record and the bare element apart, as from a
 * converted stream (`rewrite` of the passthrough rules; a cheap test of how each record begins).
 */
export function reframeGeminiError(record: WireRecord): WireRecord | undefined {
  return isError(record) ? { data: record.data } : undefined;
}

/** Google's bare error element (`{`, lines of JSON, `}`) as a record, its JSON on one line; undefined for anything else. */
function readBareError(bytes: Buffer): WireRecord | undefined {
  const text = bytes.toString('utf8').trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || !('error' in value)) return undefined;
    // `error` first: an error element is told by how its data begins (tellGeminiRecordEnd).
    const { error, ...rest } = value as Record<string, unknown>;
    return { data: JSON.stringify({ error, ...rest }) };
  } catch {
    return undefined;
  }
}

/** Where a line that begins with `{` (a bare JSON element, which no SSE field line does) begins in `bytes`; -1 if none. */
function bareLineStart(bytes: Buffer): number {
  if (bytes[0] === LEFT_BRACE) return 0;
  const at = bytes.indexOf(LF_BRACE);
  return at === -1 ? -1 : at + 1;
}

/**
 * SSE records, and the bare error element a Google stream that fails part-way ends with. Without
 * a blank line after it, the SSE reader keeps it as an unfinished record and drops it at the end:
 * it is read when the stream ends, from the bytes no whole record took. With one, the SSE reader
 * takes its lines for fields it does not know (a record without data): it is read from the whole
 * records' bytes, after their records.
 */
class GeminiRecordReader implements FrameReader {
  private readonly sse = new RecordReader();
  /** The pushed bytes no whole record took yet. */
  private tail: Buffer = EMPTY;
  /** The last push's records, with a bare error element its bytes ended with. */
  private read: WireRecord[] = [];
  /** The last push's bytes held a bare error element (it has no record end of its own). */
  private bare = false;

  get records(): WireRecord[] {
    return this.read;
  }

  push(chunk: Uint8Array): Buffer {
    const whole = this.sse.push(chunk);
    const left = this.tail.length + chunk.length - whole.length;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.tail = left === 0 ? EMPTY : left <= chunk.length ? bytes.subarray(chunk.length - left) : Buffer.concat([this.tail.subarray(this.tail.length - (left - chunk.length)), bytes]);
    const at = whole.length === 0 ? -1 : bareLineStart(whole);
    const error = at === -1 ? undefined : readBareError(whole.subarray(at));
    this.bare = error !== undefined;
    this.read = error ? [...this.sse.records, error] : this.sse.records;
    return whole;
  }

  end(): WireRecord[] {
    const error = this.tail.length > 0 ? readBareError(this.tail) : undefined;
    return error ? [error] : this.sse.end();
  }

  recordEnds(): number[] | undefined {
    return this.bare ? undefined : this.sse.recordEnds();
  }
}

/** Server-sent events as Google streams them (`alt=sse`). */
export const geminiSseFraming: StreamFraming = {
  contentType: SSE_CONTENT_TYPE,
  createReader: () => new GeminiRecordReader(),
  createWriter: () => new GeminiSseWriter(),
};
