import { isAscii } from 'node:buffer';
import { SseParser, type SseRecord } from './parse-sse.ts';
import { RecordAligner } from './align-records.ts';

const NONE: SseRecord[] = [];

/**
 * Where each of `count` records ends in `text` when each ends at its own `\n\n` (no CR anywhere,
 * no comment-only block): one native search per record instead of cutting the text again. The
 * text must start at a record (the parser held nothing): then every record a parser dispatches
 * ends at one of these blank lines, so as many blank lines as records are exactly their ends.
 * Undefined otherwise.
 */
function blankLineEnds(text: string, count: number): number[] | undefined {
  if (text.indexOf('\r') !== -1) return undefined;
  const ends: number[] = [];
  let at = text.indexOf('\n\n');
  while (at !== -1) {
    if (ends.length === count) return undefined;
    ends.push(at + 2);
    at = text.indexOf('\n\n', at + 2);
  }
  return ends.length === count ? ends : undefined;
}

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

  /** The text of the last push's bytes (read again only to tell where its records end). */
  private text = '';
  private bytes: Buffer | undefined;
  /** The parser held nothing from an earlier push when the last one began: its records all start in that push's bytes. */
  private fresh = false;

  /** Feeds a chunk; returns the bytes of the whole records in it (possibly empty), their records in `records`. */
  push(chunk: Uint8Array): Buffer {
    const bytes = this.aligner.push(chunk);
    this.bytes = bytes;
    this.text = bytes.length === 0 ? '' : textOf(bytes);
    this.fresh = this.parser.idle;
    this.records = bytes.length === 0 ? NONE : this.parser.push(this.text);
    return bytes;
  }

  /**
   * Where each record of the last push ends in its bytes (just past its blank line), so a relay
   * can leave one out and pass the others' bytes as they came; undefined when that cannot be told.
   * Asked for rarely (a record dropped from a chunk of several), so it is worked out then rather
   * than every push paying for it: from the blank lines when they alone end the records, else by
   * cutting the text again with a fresh parser (the bytes hold whole records, so it cuts them where
   * the stream's own did).
   */
  recordEnds(): number[] | undefined {
    const { text, bytes, records } = this;
    // Records that began in an earlier push (the parser held part of them) are not all in these bytes.
    if (!bytes || bytes.length === 0 || !this.fresh) return undefined;
    let textEnds = blankLineEnds(text, records.length);
    if (!textEnds) {
      textEnds = [];
      new SseParser().push(text, textEnds);
    }
    if (textEnds.length !== records.length) return undefined;
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
