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
