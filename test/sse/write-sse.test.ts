import { describe, expect, it } from 'vitest';
import { formatSse, JsonLine, jsonRecord, parseSse, writeSse, type SseRecord } from '../../src/sse/index.ts';

describe('SSE writer', () => {
  it('frames a JsonLine exactly as the same record given as a plain object', () => {
    const values: unknown[] = [
      { type: 'x', text: 'line\nbreak\r\nand\rcr' },
      { text: '\u2028\u2029 ünïcödé 中文 😀 \ud800' },
      'a string with "quotes" and \\ backslashes',
      [1, 2.5, 1e21, null, true],
      {},
      '',
    ];
    for (const value of values) {
      for (const event of [undefined, 'content_block_delta', 'message_start']) {
        const line = new JsonLine(event, JSON.stringify(value));
        const plain: SseRecord = event === undefined ? { data: JSON.stringify(value) } : { event, data: JSON.stringify(value) };
        expect(formatSse(line)).toBe(formatSse(plain));
        expect(line).toEqual(plain);
        expect(Object.keys(line)).toEqual(Object.keys(plain));
        expect(jsonRecord(event, value)).toEqual(plain);
        expect(writeSse([jsonRecord(event, value), line])).toBe(writeSse([plain, plain]));
        expect(parseSse(formatSse(line))).toEqual([plain]);
      }
    }
  });

  it('still cuts a plain record with line breaks into data lines', () => {
    expect(formatSse({ event: 'e', data: 'a\nb' })).toBe('event: e\ndata: a\ndata: b\n\n');
    expect(formatSse({ data: 'a' })).toBe('data: a\n\n');
  });
});
