import { describe, expect, it } from 'vitest';
import { geminiSseFraming } from '../../../src/formats/gemini/sse-framing.ts';
import { jsonRecord } from '../../../src/sse/index.ts';

describe('geminiSseFraming', () => {
  const text = jsonRecord(undefined, { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, index: 0 }] });
  const error = jsonRecord(undefined, { error: { code: 502, message: 'Overloaded', status: 'UNAVAILABLE' } });

  it('frames answers as SSE records', () => {
    expect(geminiSseFraming.createWriter().write([text, text])).toBe(`data: ${text.data}\n\ndata: ${text.data}\n\n`);
  });

  it('writes an error element as a record, and the bare element apart, as Google writes it (what @google/genai reads)', () => {
    const writer = geminiSseFraming.createWriter();
    expect(writer.apart?.()).toBeUndefined();
    // The record for SSE readers (the AI SDK); the bare element goes out in a network chunk of its own:
    // @google/genai tells a stream's error only from a chunk that is whole JSON by itself.
    expect(writer.write([text, error])).toBe(`data: ${text.data}\n\ndata: ${error.data}\n\n`);
    const apart = String(writer.apart?.());
    expect(JSON.parse(apart)).toMatchObject({ error: { code: 502 } });
    expect(writer.apart?.()).toBeUndefined();
  });

  it("reads Google's bare error element at the end of a stream, over several lines and pushes", () => {
    const reader = geminiSseFraming.createReader();
    const stream = `data: ${text.data}\r\n\r\n{\n  "error": {\n    "code": 503,\n    "message": "Overloaded",\n    "status": "UNAVAILABLE"\n  }\n}\n`;
    const seen = [];
    for (let i = 0; i < stream.length; i += 7) {
      reader.push(Buffer.from(stream.slice(i, i + 7)));
      seen.push(...reader.records);
    }
    expect(seen).toEqual([{ data: text.data }]);
    expect(reader.end()).toEqual([{ data: '{"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}' }]);
  });

  it("reads Google's bare error element followed by a blank line, alone or after a record in one push", () => {
    const element = '{\n  "error": {\n    "code": 503,\n    "message": "Overloaded",\n    "status": "UNAVAILABLE"\n  }\n}\n';
    const said = { data: '{"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}' };
    const alone = geminiSseFraming.createReader();
    alone.push(Buffer.from(`data: ${text.data}\r\n\r\n`));
    expect(alone.records).toEqual([{ data: text.data }]);
    alone.push(Buffer.from(`${element}\n`));
    expect(alone.records).toEqual([said]);
    expect(alone.end()).toEqual([]);
    const joined = geminiSseFraming.createReader();
    joined.push(Buffer.from(`data: ${text.data}\n\n${element.replaceAll('\n', '\r\n')}\r\n`));
    expect(joined.records).toEqual([{ data: text.data }, said]);
    expect(joined.recordEnds?.()).toBeUndefined();
    expect(joined.end()).toEqual([]);
  });

  it('leaves a cut record that is no error element to the SSE reader', () => {
    const reader = geminiSseFraming.createReader();
    reader.push(Buffer.from(`data: ${text.data}\n\ndata: {"cand`));
    expect(reader.records).toEqual([{ data: text.data }]);
    expect(reader.end()).toEqual([{ data: '{"cand' }]);
  });
});
