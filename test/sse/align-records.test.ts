import { describe, expect, it } from 'vitest';
import { RecordAligner } from '../../src/sse/index.ts';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('RecordAligner', () => {
  it('passes whole records through as they are and holds a partial one back', () => {
    const aligner = new RecordAligner();
    expect(text(aligner.push(Buffer.from('data: 1\n\ndata: 2\n\n')))).toBe('data: 1\n\ndata: 2\n\n');
    expect(text(aligner.push(Buffer.from('data: 3\n\nda')))).toBe('data: 3\n\n');
    expect(text(aligner.push(Buffer.from('ta: 4\n')))).toBe('');
    expect(text(aligner.push(Buffer.from('\nevent: x\r\ndata: 5\r\n\r\n')))).toBe('data: 4\n\nevent: x\r\ndata: 5\r\n\r\n');
    expect(aligner.rest()).toBeUndefined();
  });

  it('reassembles any split, byte by byte, into the same bytes', () => {
    const input = 'event: a\ndata: {"x":"é👋"}\n\ndata: [DONE]\n\n';
    const aligner = new RecordAligner();
    const bytes = Buffer.from(input);
    let out = Buffer.alloc(0);
    for (let i = 0; i < bytes.length; i += 1) out = Buffer.concat([out, aligner.push(bytes.subarray(i, i + 1))]);
    expect(out.toString('utf8')).toBe(input);
  });

  it('waits on a trailing \\r\\r like the SSE parser does', () => {
    const aligner = new RecordAligner();
    expect(text(aligner.push(Buffer.from('data: 1\r\r')))).toBe('');
    expect(text(aligner.push(Buffer.from('\ndata: 2\r\r')))).toBe('data: 1\r\r');
    expect(text(aligner.push(Buffer.from('\n')))).toBe('\ndata: 2\r\r');
  });

  it('keeps what never got its blank line for rest()', () => {
    const aligner = new RecordAligner();
    aligner.push(new Uint8Array(Buffer.from('data: 1\n\ndata: cut')));
    expect(text(aligner.rest()!)).toBe('data: cut');
  });
});

/** The aligner as it was before records were held as chunks (the whole held record joined and searched on every push): the reference the chunked one must cut like. */
class JoiningAligner {
  private pending: Buffer | undefined;
  push(chunk: Buffer): Buffer {
    const bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = lastEnd(bytes);
    this.pending = end < bytes.length ? bytes.subarray(end) : undefined;
    return bytes.subarray(0, end);
  }
  rest(): Buffer | undefined {
    return this.pending;
  }
}

function lastEnd(bytes: Buffer): number {
  const lf = bytes.lastIndexOf('\n\n');
  const crlf = bytes.lastIndexOf('\n\r\n');
  let cr = bytes.lastIndexOf('\r\r');
  if (cr !== -1 && cr + 2 === bytes.length) cr = cr > 0 ? bytes.lastIndexOf('\r\r', cr - 1) : -1;
  return Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 3, cr === -1 ? 0 : cr + 2);
}

describe('RecordAligner: a record in many chunks', () => {
  it('cuts every split of every line-ending mix exactly as joining the held bytes did (5,000 random streams)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const pieces = ['data: x', 'é', '\n', '\r', '\r\n', '\n\n', '\r\r', '\n\r\n', 'event: e', ':'];
    for (let n = 0; n < 5000; n += 1) {
      const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const bytes = Buffer.from(text);
      const ours = new RecordAligner();
      const theirs = new JoiningAligner();
      let at = 0;
      while (at < bytes.length) {
        const size = 1 + Math.floor(random() * 6);
        const chunk = bytes.subarray(at, at + size);
        at += size;
        expect(ours.push(chunk).toString('latin1'), JSON.stringify(text)).toBe(theirs.push(chunk).toString('latin1'));
      }
      expect(ours.rest()?.toString('latin1')).toBe(theirs.rest()?.toString('latin1'));
    }
  });

  it('holds a long record as its chunks: 8 MB in 1 KB chunks is cut once, with no copy per chunk', () => {
    const aligner = new RecordAligner();
    const chunk = Buffer.alloc(1024, 'a');
    const concat = Buffer.concat;
    let joined = 0;
    Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
      joined += list.reduce((n, b) => n + b.length, 0);
      return concat(list, length);
    }) as typeof Buffer.concat;
    try {
      expect(aligner.push(Buffer.from('data: ')).length).toBe(0);
      for (let i = 0; i < 8 * 1024; i += 1) expect(aligner.push(chunk).length).toBe(0);
      const out = aligner.push(Buffer.from('\n\n'));
      expect(out.length).toBe(6 + 8 * 1024 * 1024 + 2);
    } finally {
      Buffer.concat = concat;
    }
    // The held record is joined once when it ends (plus two bytes' look-behind per chunk), not once per chunk (~32 GB).
    expect(joined).toBeLessThan(3 * 8 * 1024 * 1024);
  });

  it('fails a record past its bound as the provider\'s error, and holds nothing of it', () => {
    const aligner = new RecordAligner(4096);
    aligner.push(Buffer.from('data: 1\n\ndata: '));
    let thrown: unknown;
    try {
      for (let i = 0; i < 10; i += 1) aligner.push(Buffer.alloc(1024, 'b'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'provider_error', status: 502, details: { limit_bytes: 4096 } });
    expect(aligner.rest()).toBeUndefined();
  });
});
