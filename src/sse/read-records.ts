import { isAscii } from 'node:buffer';
import { SseParser, type SseRecord } from './parse-sse.ts';
import { RecordAligner } from './align-records.ts';

const NONE: SseRecord[] = [];

/**
 * The text of whole records' bytes. ASCII bytes (most streams of English text) are
 * copied as latin1, the same text without the UTF-8 decoder's validating pass (~1.3
 * instructions a byte on Node 20, which does not check for ASCII itself).
 */
function textOf(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

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

  /** The text of the last push's bytes (measured again only when a character takes more than one byte). */
  private text = '';
  /** Where each record of the last push ends in `text`, as the parser cut it (its first `records.length` entries: one array for every push). */
  private readonly textEnds: number[] = [];
  private bytes: Buffer | undefined;
  /** The parser held nothing from an earlier push when the last one began: its records all start in that push's bytes. */
  private fresh = false;

  /** Feeds a chunk; returns the bytes of the whole records in it (possibly empty), their records in `records`. */
  push(chunk: Uint8Array): Buffer {
    const bytes = this.aligner.push(chunk);
    this.bytes = bytes;
    this.text = bytes.length === 0 ? '' : textOf(bytes);
    this.fresh = this.parser.idle;
    this.records = bytes.length === 0 ? NONE : this.parser.push(this.text, this.textEnds);
    return bytes;
  }

  /**
   * Where each record of the last push ends in its bytes (just past its blank line), so a relay
   * can leave one out and pass the others' bytes as they came; undefined when that cannot be told.
   * The parser noted each end as it cut the text (no second search); a character of more than one
   * byte only shifts them into byte offsets.
   */
  recordEnds(): number[] | undefined {
    const { text, bytes, records, textEnds } = this;
    // Records that began in an earlier push (the parser held part of them) are not all in these bytes.
    if (!bytes || bytes.length === 0 || !this.fresh) return undefined;
    const count = records.length;
    if (textEnds.length < count) return undefined;
    // Every character one byte (ASCII, or each bad byte read as one U+FFFD): the offsets are the same.
    if (text.length === bytes.length) return textEnds.slice(0, count);
    // Bad UTF-8 read as U+FFFD encodes back longer: the text no longer says where the bytes are.
    if (Buffer.byteLength(text) !== bytes.length) return undefined;
    const ends: number[] = [];
    let at = 0;
    let from = 0;
    for (let i = 0; i < count; i += 1) {
      const end = textEnds[i];
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
