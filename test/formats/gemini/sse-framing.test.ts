import { describe, expect, it } from 'vitest';
import { geminiSseFraming } from '../../../src/formats/gemini/sse-framing.ts';
import { jsonRecord } from '../../../src/sse/index.ts';

describe('geminiSseFraming', () => {
  const text = jsonRecord(undefined, { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, index: 0 }] });
  const error = jsonRecord(undefined, { error: { code: 502, message: 'Overloaded', status: 'UNAVAILABLE' } });

  it('frames answers as SSE records', () => {
    expect(geminiSseFraming.createWriter().write([text, text])).toBe(`data: ${text.data}\n\ndata: ${text.data}\n\n`);
  });

  it('writes an error element as a record and then bare, as Google writes it (what @google/genai reads)', () => {
    const out = String(geminiSseFraming.createWriter().write([text, error]));
    expect(out).toBe(`data: ${text.data}\n\ndata: ${error.data}\n\n${error.data}\n`);
    // Alone in a network chunk, the bare element is whole JSON: @google/genai's test for a stream's error.
    expect(JSON.parse(out.slice(out.lastIndexOf('\n\n') + 2))).toMatchObject({ error: { code: 502 } });
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

  it('leaves a cut record that is no error element to the SSE reader', () => {
    const reader = geminiSseFraming.createReader();
    reader.push(Buffer.from(`data: ${text.data}\n\ndata: {"cand`));
    expect(reader.records).toEqual([{ data: text.data }]);
    expect(reader.end()).toEqual([{ data: '{"cand' }]);
  });
});
