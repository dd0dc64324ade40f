import type { FrameReader, FrameWriter, StreamFraming, WireRecord } from '../types.ts';

const NONE: WireRecord[] = [];
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Cuts a stream that is one JSON array written element by element (`[` element `,` element …
 * `]`, any whitespace between: Google's streaming without `alt=sse`) into its elements, at any
 * split of the bytes. Bracket depth is counted on bytes (JSON's structural characters are ASCII,
 * so UTF-8 needs no decoding to find them). The bytes a push returns run from where the last
 * ones ended to the end of its last whole element (the opening `[` and the commas included);
 * the closing `]` is never returned: the writer's `end()` writes it.
 */
class JsonArrayReader implements FrameReader {
  records: WireRecord[] = NONE;
  private pending: Buffer = Buffer.alloc(0);
  /** Where the scan stopped in `pending`. */
  private at = 0;
  private started = false;
  private closed = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Start of the element being read, in `pending`; -1 between elements. */
  private elementStart = -1;

  push(chunk: Uint8Array): Buffer {
    const bytes = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const records: WireRecord[] = [];
    let wholeEnd = 0;
    let i = this.at;
    for (; i < bytes.length && !this.closed; i += 1) {
      const byte = bytes[i];
      if (this.elementStart >= 0) {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) this.inString = false;
          continue;
        }
        if (byte === QUOTE) this.inString = true;
        else if (byte === BRACE_OPEN || byte === OPEN) this.depth += 1;
        else if (byte === BRACE_CLOSE || byte === CLOSE) {
          this.depth -= 1;
          if (this.depth === 0) {
            records.push({ data: bytes.toString('utf8', this.elementStart, i + 1) });
            this.elementStart = -1;
            wholeEnd = i + 1;
          }
        }
        continue;
      }
      if (isSpace(byte)) continue;
      if (!this.started) {
        if (byte !== OPEN) throw new SyntaxError('a JSON-array stream must start with [');
        this.started = true;
      } else if (byte === COMMA) continue;
      else if (byte === CLOSE) this.closed = true;
      else if (byte === BRACE_OPEN || byte === OPEN) {
        this.elementStart = i;
        this.depth = 1;
      } else throw new SyntaxError(`unexpected byte ${JSON.stringify(String.fromCharCode(byte))} between the elements of a JSON-array stream`);
    }
    // Keep the element being read (and what precedes it) for the next chunk.
    this.pending = bytes.subarray(wholeEnd);
    this.at = i - wholeEnd;
    if (this.elementStart >= 0) this.elementStart -= wholeEnd;
    this.records = records.length === 0 ? NONE : records;
    return bytes.subarray(0, wholeEnd);
  }

  end(): WireRecord[] {
    return NONE; // a cut element cannot be read: the relay then says the stream ended early
  }
}

/** Records → `[`, elements separated by `,`, `]`; keeps its place when the upstream's own bytes went by. */
class JsonArrayWriter implements FrameWriter {
  private count = 0;

  write(records: readonly WireRecord[]): string {
    let out = '';
    for (const record of records) {
      out += (this.count === 0 ? '[' : ',\r\n') + record.data;
      this.count += 1;
    }
    return out;
  }

  passed(count: number): void {
    this.count += count;
  }

  end(): string {
    return this.count === 0 ? '[]' : ']';
  }
}

/** A stream as one JSON array written element by element (Google's `streamGenerateContent` without `alt=sse`). */
export const jsonArrayFraming: StreamFraming = {
  contentType: 'application/json; charset=utf-8',
  createReader: () => new JsonArrayReader(),
  createWriter: () => new JsonArrayWriter(),
};
