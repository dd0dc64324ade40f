import { RecordReader, SSE_CONTENT_TYPE, writeSse } from '../../sse/index.ts';
import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from '../types.ts';

const EMPTY = Buffer.alloc(0);

/** An error element: Google's `{"error": {code, message, status}}`, the last record of a failed stream. */
const isError = (record: WireRecord) => record.data.startsWith('{"error"');

/**
 * Google writes the error of a stream that fails part-way bare, without `data: `; @google/genai
 * (gemini-cli) reads a `data:` error record as an answer without candidates, so a failed stream
 * looked like one that merely ended. SSE readers (the AI SDK's Google provider) read only the record.
 * So the error goes out both ways: the record, then the bare element, unended, so that @google/genai,
 * reading it joined to the record, fails on the incomplete segment instead of ending quietly.
 */
const GEMINI_SSE_WRITER: FrameWriter = {
  write(records) {
    const out = writeSse(records);
    const last = records.at(-1);
    return last !== undefined && isError(last) ? `${out}${last.data}\n` : out;
  },
  passed() {},
  end: () => '',
};

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

/**
 * SSE records, and the bare error element a Google stream that fails part-way ends with: no SSE
 * field, no blank line after it, so the SSE reader keeps it as an unfinished record and drops it at
 * the end. It is read when the stream ends, from the bytes no whole record took.
 */
class GeminiRecordReader implements FrameReader {
  private readonly sse = new RecordReader();
  /** The pushed bytes no whole record took yet. */
  private tail: Buffer = EMPTY;

  get records(): WireRecord[] {
    return this.sse.records;
  }

  push(chunk: Uint8Array): Buffer {
    const whole = this.sse.push(chunk);
    const left = this.tail.length + chunk.length - whole.length;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.tail = left === 0 ? EMPTY : left <= chunk.length ? bytes.subarray(chunk.length - left) : Buffer.concat([this.tail.subarray(this.tail.length - (left - chunk.length)), bytes]);
    return whole;
  }

  end(): WireRecord[] {
    const error = this.tail.length > 0 ? readBareError(this.tail) : undefined;
    return error ? [error] : this.sse.end();
  }

  recordEnds(): number[] | undefined {
    return this.sse.recordEnds();
  }
}

/** Server-sent events as Google streams them (`alt=sse`). */
export const geminiSseFraming: StreamFraming = {
  contentType: SSE_CONTENT_TYPE,
  createReader: () => new GeminiRecordReader(),
  createWriter: () => GEMINI_SSE_WRITER,
};
