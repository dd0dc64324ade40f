import { describe, expect, it } from 'vitest';
import { RecordReader } from '../../src/sse/index.ts';

function endsOf(...chunks: Buffer[]): { ends: number[] | undefined; bytes: Buffer } {
  const reader = new RecordReader();
  let bytes: Buffer = Buffer.alloc(0);
  for (const chunk of chunks) bytes = reader.push(chunk);
  return { ends: reader.recordEnds(), bytes };
}

describe('RecordReader.recordEnds', () => {
  it('says where each record of the last push ends in its bytes, whatever the line breaks, comments and characters', () => {
    const a = 'data: {"a":"Grüße"}\n\n';
    const b = ': ping\r\nevent: x\r\ndata: 🦊\r\n\r\n';
    const c = 'data: c\r\r';
    const d = 'data: d\n\n';
    const { ends, bytes } = endsOf(Buffer.from(`\ufeff${a}${b}${c}${d}`));
    const at = (s: string) => Buffer.byteLength(s);
    expect(ends).toEqual([at(`\ufeff${a}`), at(`\ufeff${a}${b}`), at(`\ufeff${a}${b}${c}`), at(`\ufeff${a}${b}${c}${d}`)]);
    expect(bytes.length).toBe(ends!.at(-1));
  });

  it('counts from the start of the last push, a record cut across chunks included', () => {
    const { ends, bytes } = endsOf(Buffer.from('data: 1\n\ndata: 2'), Buffer.from('2\n\n: only a comment\n\n'));
    expect(bytes.toString()).toBe('data: 22\n\n: only a comment\n\n');
    expect(ends).toEqual([10]);
  });

  it('cannot tell when bad UTF-8 was read as U+FFFD', () => {
    const bad = Buffer.concat([Buffer.from('data: '), Buffer.from([0xe2, 0x82]), Buffer.from('\n\ndata: é\n\n')]);
    expect(endsOf(bad).ends).toBeUndefined();
  });
});
