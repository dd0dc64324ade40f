/** One server-sent event: its `event:` name (if any) and its joined `data:` lines. */
export interface SseRecord {
  event?: string;
  data: string;
  id?: string;
}

/**
 * Incremental SSE parser (WHATWG rules): feed it bytes as they arrive, in any split,
 * and it returns the complete records found so far. Comments and unknown fields are skipped.
 */
export class SseParser {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private event: string | undefined;
  private id: string | undefined;
  private data: string[] = [];

  /** Feeds a chunk; returns the records it completed. */
  push(chunk: Uint8Array | string): SseRecord[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: SseRecord[] = [];
    let start = 0;
    for (;;) {
      const nl = this.findNewline(start);
      if (nl === -1) break;
      let end = nl;
      let next = nl + 1;
      if (this.buffer.charCodeAt(nl) === 13 /* \r */) {
        if (nl + 1 >= this.buffer.length) break; // wait: could be \r\n split across chunks
        if (this.buffer.charCodeAt(nl + 1) === 10) next = nl + 2;
      }
      this.line(this.buffer.slice(start, end), out);
      start = next;
    }
    this.buffer = start === 0 ? this.buffer : this.buffer.slice(start);
    return out;
  }

  /** Flushes a last record that was not followed by a blank line (a cut stream). */
  end(): SseRecord[] {
    const out: SseRecord[] = [];
    const rest = this.buffer + this.decoder.decode();
    this.buffer = '';
    if (rest.length > 0) {
      for (const line of rest.split(/\r\n|\r|\n/)) this.line(line, out);
    }
    this.dispatch(out);
    return out;
  }

  private findNewline(from: number): number {
    const lf = this.buffer.indexOf('\n', from);
    const cr = this.buffer.indexOf('\r', from);
    if (cr === -1) return lf;
    if (lf === -1) return cr;
    return Math.min(lf, cr);
  }

  private line(line: string, out: SseRecord[]): void {
    if (line.length === 0) {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return; // comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
  }

  private dispatch(out: SseRecord[]): void {
    if (this.data.length > 0 || this.event !== undefined) {
      const record: SseRecord = { data: this.data.join('\n') };
      if (this.event !== undefined) record.event = this.event;
      if (this.id !== undefined) record.id = this.id;
      out.push(record);
    }
    this.data = [];
    this.event = undefined;
  }
}

/** Parses a whole SSE body (tests, fixtures). */
export function parseSse(text: string): SseRecord[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}
