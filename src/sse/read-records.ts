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

  /** The text of the last push's bytes (read again only to tell where its records end). */
  private text = '';
  private bytes: Buffer | undefined;

  /** Feeds a chunk; returns the bytes of the whole records in it (possibly empty), their records in `records`. */
  push(chunk: Uint8Array): Buffer {
    const bytes = this.aligner.push(chunk);
    this.bytes = bytes;
    this.text = bytes.length === 0 ? '' : bytes.toString('utf8');
    this.records = bytes.length === 0 ? NONE : this.parser.push(this.text);
    return bytes;
  }

  /**
   * Where each record of the last push ends in its bytes (just past its blank line), so a relay
   * can leave one out and pass the others' bytes as they came; undefined when that cannot be told.
   * Asked for rarely (a record dropped from a chunk of several), so the text is read again then
   * rather than every push paying for it; the bytes hold whole records, so a fresh parser cuts them
   * where the stream's own did.
   */
  recordEnds(): number[] | undefined {
    const { text, bytes } = this;
    if (!bytes || bytes.length === 0) return undefined;
    const textEnds: number[] = [];
    new SseParser().push(text, textEnds);
    if (textEnds.length !== this.records.length) return undefined;
    // Every character one byte (ASCII, or each bad byte read as one U+FFFD): the offsets are the same.
    if (text.length === bytes.length) return textEnds;
    // Bad UTF-8 read as U+FFFD encodes back longer: the text no longer says where the bytes are.
    if (Buffer.byteLength(text) !== bytes.length) return undefined;
    const ends: number[] = [];
    let at = 0;
    let from = 0;
    for (const end of textEnds) {
      at += Buffer.byteLength(text.slice(from, end));
      from = end;
      ends.push(at);
    }
    return ends;
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
