import { RecordReader, SSE_CONTENT_TYPE, writeSse } from '../../sse/index.ts';
import type { FrameWriter, StreamFraming, WireRecord } from '../types.ts';

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

/** Server-sent events as Google streams them (`alt=sse`). */
export const geminiSseFraming: StreamFraming = {
  contentType: SSE_CONTENT_TYPE,
  createReader: () => new RecordReader(),
  createWriter: () => GEMINI_SSE_WRITER,
};
