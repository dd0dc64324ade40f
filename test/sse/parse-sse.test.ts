import { describe, expect, it } from 'vitest';
import { SseParser, parseSse, type SseRecord } from '../../src/sse/index.ts';

/** The parser as first written (TextDecoder, line by line): the reference the fast one must match. */
function reference(pieces: Uint8Array[]): SseRecord[] {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let id: string | undefined;
  let data: string[] = [];
  const out: SseRecord[] = [];
  const dispatch = () => {
    if (data.length > 0 || event !== undefined) {
      const record: SseRecord = { data: data.join('\n') };
      if (event !== undefined) record.event = event;
      if (id !== undefined) record.id = id;
      out.push(record);
    }
    data = [];
    event = undefined;
  };
  const line = (l: string) => {
    if (l.length === 0) return dispatch();
    if (l.charCodeAt(0) === 58) return;
    const colon = l.indexOf(':');
    const field = colon === -1 ? l : l.slice(0, colon);
    let value = colon === -1 ? '' : l.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
  };
  for (const piece of pieces) {
    buffer += decoder.decode(piece, { stream: true });
    let start = 0;
    for (;;) {
      const lf = buffer.indexOf('\n', start);
      const cr = buffer.indexOf('\r', start);
      const nl = cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr);
      if (nl === -1) break;
      let next = nl + 1;
      if (buffer.charCodeAt(nl) === 13) {
        if (nl + 1 >= buffer.length) break;
        if (buffer.charCodeAt(nl + 1) === 10) next = nl + 2;
      }
      line(buffer.slice(start, nl));
      start = next;
    }
    buffer = buffer.slice(start);
  }
  const rest = buffer + decoder.decode();
  if (rest.length > 0) for (const l of rest.split(/\r\n|\r|\n/)) line(l);
  dispatch();
  return out;
}

function fast(pieces: Uint8Array[]): SseRecord[] {
  const parser = new SseParser();
  const out: SseRecord[] = [];
  for (const piece of pieces) out.push(...parser.push(piece));
  out.push(...parser.end());
  return out;
}

const STREAMS = [
  'data: {"a":1}\n\ndata: {"b":"é👋"}\n\ndata: [DONE]\n\n',
  'event: message_start\r\ndata: {"type":"message_start"}\r\n\r\n: keep-alive\r\n\r\nevent: ping\r\ndata: {}\r\n\r\n',
  'data: one\rdata: two\r\rid: 7\revent: x\rdata\r\r',
  'data:no-space\ndata:  two spaces\nretry: 10\nunknown: field\n\ndata: cut at the end',
  ':comment only\n\nevent: only-event\n\nid\ndata: x\n\n\n\n',
];

describe('SseParser', () => {
  it.each(STREAMS.map((s, i) => [i, s] as const))('matches the reference parser on stream %i at every split', (_i, text) => {
    const bytes = Buffer.from(text);
    const expected = reference([bytes]);
    expect(fast([bytes])).toEqual(expected);
    for (let at = 1; at < bytes.length; at += 1) {
      expect(fast([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(expected);
    }
    expect(fast([...bytes].map((b) => Uint8Array.of(b)))).toEqual(expected);
  });

  it('joins data lines, keeps the last event name and id, skips comments', () => {
    expect(parseSse('id: 1\nevent: a\ndata: x\ndata: y\n\n: c\ndata: z\n\n')).toEqual([
      { event: 'a', id: '1', data: 'x\ny' },
      { id: '1', data: 'z' },
    ]);
  });

  it('waits for the byte after a trailing \\r before ending the line', () => {
    const parser = new SseParser();
    expect(parser.push('data: 1\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ data: '1' }]);
  });

  it('drops a leading byte order mark, as a stream decoder does', () => {
    expect(new SseParser().push(Buffer.from('\ufeffdata: x\n\n'))).toEqual([{ data: 'x' }]);
  });
});
