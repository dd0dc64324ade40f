import { SseParser, type SseRecord } from './parse-sse.ts';
import { RecordAligner } from './align-records.ts';

const NONE: SseRecord[] = [];

/**
 * Cuts upstream bytes at SSE record boundaries and parses the whole records: the bytes pass
 * through as they are, the records are what the relay reads. A cut falls on a line break,
 * never inside a UTF-8 sequence, so each piece decodes on its own (no streaming decoder).
 */
export class RecordReader {
  private readonly aligner = new RecordAligner();
  private readonly parser = new SseParser();
  /** The records of the bytes the last `push` returned. */
  records: SseRecord[] = NONE;
  private tail: SseRecord[] | undefined;

  /** Feeds a chunk; returns the bytes of the whole records in it (possibly empty), their records in `records`. */
  push(chunk: Uint8Array): Buffer {
    const bytes = this.aligner.push(chunk);
    this.records = bytes.length === 0 ? NONE : this.parser.push(bytes.toString('utf8'));
    return bytes;
  }

  /** The records of a last record that never got its blank line (a cut stream); the same on every call. */
  end(): SseRecord[] {
    if (this.tail) return this.tail;
    const rest = this.aligner.rest();
    if (rest) this.parser.push(rest);
    this.tail = this.parser.end();
    return this.tail;
  }
}
