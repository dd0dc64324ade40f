import { describe, expect, it } from 'vitest';
import { chatFormat } from '../../src/formats/chat/index.ts';
import type { PassthroughRules, WireRecord } from '../../src/formats/index.ts';
import { markedRecords, rewritePassedRecords } from '../../src/pipeline/pass-records.ts';
import { RecordReader } from '../../src/sse/index.ts';
import { forgetSecrets, rememberSecret } from '../../src/util/index.ts';
import { chatStream } from '../helpers/routing-wire.ts';

const rules = chatFormat.passthrough;

/** The marks of one chunk as the relay reads it: its records' ends from the reader that cut it. */
function marksOf(text: string | Buffer): { marked: boolean[] | undefined; records: WireRecord[] } {
  const reader = new RecordReader();
  const bytes = reader.push(Buffer.from(text));
  return { marked: markedRecords(bytes, reader.records.length, reader.recordEnds(), rules), records: reader.records };
}

describe('markedRecords: one search of a burst for the format\'s marker', () => {
  it('marks the records whose bytes hold Chat\'s `"usage"`, wherever they stand, and no other', () => {
    const records = chatStream(['Grüße ', 'a', 'b', '🦊']);
    const usage = records.find((record) => record.includes('"usage":{'))!;
    const others = records.filter((record) => record !== usage);
    for (const at of [0, 3, others.length - 1, others.length]) {
      const order = [...others.slice(0, at), usage, ...others.slice(at)];
      expect(marksOf(order.join('')).marked).toEqual(order.map((record) => record === usage));
    }
    expect(marksOf(others.join('')).marked).toEqual(others.map(() => false));
  });

  it('counts records by the parser\'s ends: CRLF and CR line breaks, comments and extra blank lines', () => {
    const [role, x, stop, usage, done] = chatStream(['x']);
    const crlf = (record: string) => record.replaceAll('\n', '\r\n');
    const text = [`: ping\r\n\r\n${crlf(role)}`, x.replace('\n\n', '\r\r'), `\n${crlf(stop)}`, crlf(usage), done].join('');
    expect(marksOf(text).marked).toEqual([false, false, false, true, false]);
  });

  it('marks a record whose text holds the marker anywhere (a comment before it, a content string), never one whose data lacks it', () => {
    const [role, x, y, stop, usage, done] = chatStream(['"usage"', 'usage']);
    // A content `usage` is the marker (`"content":"usage"`), a content `"usage"` is not (escaped: `\"usage\"`); a comment holding it marks the record it precedes.
    const text = [role, x, y, `: "usage" in a comment\n${stop}`, usage, done].join('');
    const { marked, records } = marksOf(text);
    expect(marked).toEqual([false, false, true, true, true, false]);
    for (let i = 0; i < records.length; i += 1) if (!marked![i]) expect(records[i].data.includes('"usage"')).toBe(false);
    const near = chatStream(['a', 'b'], { usage: false }).map((record) => record.replace('"role":"assistant"', '"role":"assistant","usages":1,"x_usage":2'));
    expect(marksOf(near.join('')).marked?.[0]).toBe(false);
    expect(marksOf(near.join('').replace('"usages":1', '"usage":1')).marked?.[0]).toBe(true);
  });

  it('is undefined (every record is asked) for a few records, unknown ends, ends of other bytes, or a format without a marker', () => {
    const records = chatStream(['a', 'b']);
    const bytes = Buffer.from(records.join(''));
    expect(marksOf(records.slice(0, 3).join('')).marked).toBeUndefined();
    expect(markedRecords(bytes, records.length, undefined, rules)).toBeUndefined();
    const reader = new RecordReader();
    reader.push(bytes);
    const ends = reader.recordEnds()!;
    expect(markedRecords(bytes, records.length, ends, rules)).toHaveLength(records.length);
    expect(markedRecords(Buffer.concat([Buffer.from(': x\n\n'), bytes]), records.length, ends, rules)).toBeUndefined();
    expect(markedRecords(bytes, records.length + 1, ends, rules)).toBeUndefined();
    expect(markedRecords(bytes, records.length, ends, { rewrite: rules.rewrite })).toBeUndefined();
    // Bad UTF-8 read as U+FFFD: the reader cannot say where the records end in the bytes.
    const bad = Buffer.concat([Buffer.from(records[0]), Buffer.from('data: {"a":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n\n'), bytes]);
    expect(marksOf(bad).marked).toBeUndefined();
  });
});

describe('rewritePassedRecords with marks', () => {
  const dropUsage = { dropUsageRecords: true };

  it('asks the rewrite of the marked records alone, and redacts an unmarked error record all the same', () => {
    const asked: string[] = [];
    const counting: PassthroughRules = { ...rules, rewrite: (record, context) => (asked.push(record.data), rules.rewrite!(record, context)) };
    const records = chatStream(['a', 'b']).join('');
    const reader = new RecordReader();
    const bytes = reader.push(Buffer.from(records));
    const marked = markedRecords(bytes, reader.records.length, reader.recordEnds(), counting)!;
    const changes = rewritePassedRecords(reader.records, counting, dropUsage, bytes, marked);
    expect(asked).toEqual([reader.records[marked.indexOf(true)].data]);
    expect(Array.from(changes!, (change) => change === null)).toEqual(marked);

    const key = 'sk-pass-records-test-0123456789';
    rememberSecret(key);
    try {
      const error = `data: ${JSON.stringify({ error: { message: `Incorrect API key provided: ${key}` } })}\n\n`;
      const withError = new RecordReader();
      const errorBytes = withError.push(Buffer.from(chatStream(['a', 'b'], { usage: false }).slice(0, 3).join('') + error));
      const errorMarks = markedRecords(errorBytes, withError.records.length, withError.recordEnds(), rules);
      expect(errorMarks).toEqual([false, false, false, false]);
      const redacted = rewritePassedRecords(withError.records, rules, dropUsage, errorBytes, errorMarks);
      expect(redacted?.[3]?.data).toContain('Incorrect API key provided: [redacted]');
    } finally {
      forgetSecrets();
    }
  });
});
