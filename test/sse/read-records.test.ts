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

  it('finds the same ends from LF-only blank lines, with comment-only blocks and extra blank lines among them', () => {
    const records = ['data: {"a":1}\n\n', ': keep-alive\n\n', '\n', 'event: e\ndata: 2\n\n', 'data: 3\n\n\n', 'data: 4\n\n'];
    const at = (n: number) => Buffer.byteLength(records.slice(0, n).join(''));
    const { ends } = endsOf(Buffer.from(records.join('')));
    expect(ends).toEqual([at(1), at(4), at(5) - 1, at(6)]);
    expect(endsOf(Buffer.from('data: 1\n\ndata: 2\n\n')).ends).toEqual([9, 18]);
  });

  it('counts from the start of the last push, a record cut across chunks included', () => {
    const { ends, bytes } = endsOf(Buffer.from('data: 1\n\ndata: 2'), Buffer.from('2\n\n: only a comment\n\n'));
    expect(bytes.toString()).toBe('data: 22\n\n: only a comment\n\n');
    expect(ends).toEqual([10]);
  });

  it('answers for the last push alone, and what it answered stays as it was after later pushes', () => {
    const reader = new RecordReader();
    reader.push(Buffer.from('data: 1\n\ndata: 22\n\ndata: 333\n\n'));
    const first = reader.recordEnds();
    expect(first).toEqual([9, 19, 30]);
    reader.push(Buffer.from('data: 4444\r\n\r\n'));
    expect(reader.recordEnds()).toEqual([14]);
    reader.push(Buffer.from(': only a comment\n\n'));
    expect(reader.recordEnds()).toEqual([]);
    expect(first).toEqual([9, 19, 30]);
  });

  it('cannot tell when the parser still held part of an earlier push (a CR that may begin a CRLF)', () => {
    const reader = new RecordReader();
    expect(reader.push(Buffer.from('data: c\r\rdata: d')).toString()).toBe('data: c\r\r');
    expect(reader.records).toEqual([]);
    reader.push(Buffer.from('\r\rdata: e\n\n'));
    expect(reader.records.map((r) => r.data)).toEqual(['c', 'd', 'e']);
    expect(reader.recordEnds()).toBeUndefined();
  });

  it('cannot tell when bad UTF-8 was read as U+FFFD', () => {
    const bad = Buffer.concat([Buffer.from('data: '), Buffer.from([0xe2, 0x82]), Buffer.from('\n\ndata: é\n\n')]);
    expect(endsOf(bad).ends).toBeUndefined();
  });
});
