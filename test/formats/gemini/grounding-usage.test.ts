/**
 * Google Search grounding counted as Google bills it (docs/billing.md, Web searches): a Gemini
 * 1.x/2.x answer is one grounded prompt however many queries it ran; a Gemini 3 answer is one
 * search per query. Read from the answer's `groundingMetadata` into `usage.webSearchRequests`,
 * converted (JSON and stream, the grounding repeated or split over records) and passed through
 * (the answer, the stream's usage tap). Fixtures are recorded-looking answers to "Who won Euro
 * 2024?": gemini-2.5-flash with two queries, gemini-3-flash-preview streamed with its queries
 * over two records (the first one repeated).
 */
import { describe, expect, it } from 'vitest';
import { getCodec } from '../../../src/formats/index.ts';
import { readFixture, readJsonFixture, runStream, sseRecords } from '../stream-helpers.ts';

type Json = Record<string, any>;

const gemini = getCodec('gemini');
const answer = readJsonFixture<Json>('gemini/response-grounding.json');
const streamed = readFixture('gemini/stream-grounding-gemini3.sse.txt');
const asModel = (body: Json, model: string): Json => ({ ...body, modelVersion: model });
const record = (body: Json) => `data: ${JSON.stringify(body)}\r\n\r\n`;
const usageOf = (sse: string, split = 0) => runStream(gemini, sse, split).find((part) => part.type === 'usage');
const tap = (sse: string) => {
  const usageTap = gemini.createUsageTap!();
  for (const r of sseRecords(sse)) usageTap.push(r);
  return usageTap.info.usage;
};

describe('a JSON answer', () => {
  it('gemini-2.5-flash: two queries are one grounded prompt, one search; the tokens as before', () => {
    expect(gemini.decodeResponse(answer).usage).toEqual({ inputTokens: 7 + 256, outputTokens: 28 + 53, reasoningTokens: 53, webSearchRequests: 1 });
    expect(gemini.decodeResponse(asModel(answer, 'gemini-2.0-flash-001')).usage.webSearchRequests).toBe(1);
  });

  it('Gemini 3 (and a version nobody knows): one search per query', () => {
    expect(gemini.decodeResponse(asModel(answer, 'gemini-3-pro-preview')).usage.webSearchRequests).toBe(2);
    expect(gemini.decodeResponse(asModel(answer, 'gemini-flash-latest')).usage.webSearchRequests).toBe(2);
  });

  it('no search, no count: no groundingMetadata, or one with neither queries nor web sources', () => {
    const { groundingMetadata: _, ...candidate } = answer.candidates[0];
    expect(gemini.decodeResponse({ ...answer, candidates: [candidate] }).usage.webSearchRequests).toBeUndefined();
    expect(gemini.decodeResponse({ ...answer, candidates: [{ ...candidate, groundingMetadata: { webSearchQueries: [], groundingChunks: [] } }] }).usage.webSearchRequests).toBeUndefined();
  });

  it('grounded with sources but no query listed: one search', () => {
    const { webSearchQueries: _, ...metadata } = answer.candidates[0].groundingMetadata;
    const body = { ...answer, modelVersion: 'gemini-3-flash-preview', candidates: [{ ...answer.candidates[0], groundingMetadata: metadata }] };
    expect(gemini.decodeResponse(body).usage.webSearchRequests).toBe(1);
  });

  it('the same-format passthrough reads the same count', () => {
    expect(gemini.readPassthroughResponse!(answer).usage).toMatchObject({ inputTokens: 263, webSearchRequests: 1 });
    expect(gemini.readPassthroughResponse!(asModel(answer, 'gemini-3-flash-preview')).usage?.webSearchRequests).toBe(2);
  });

  it('a Messages client of a grounded Gemini answer sees the searches in server_tool_use', () => {
    const body = getCodec('messages').encodeResponse(gemini.decodeResponse(asModel(answer, 'gemini-3-flash-preview')), { model: 'g', system: [], messages: [], stream: false }) as Json;
    expect(body.usage.server_tool_use).toEqual({ web_search_requests: 2 });
  });
});

describe('a stream', () => {
  it('Gemini 3, the grounding on two records (the first query repeated): two searches, split anywhere', () => {
    expect(usageOf(streamed)).toEqual({ type: 'usage', usage: { inputTokens: 7 + 290, outputTokens: 31 + 84, reasoningTokens: 84, webSearchRequests: 2 } });
    expect(usageOf(streamed, 17)).toMatchObject({ usage: { webSearchRequests: 2 } });
  });

  it('the same stream from gemini-2.5-flash: one grounded prompt', () => {
    expect(usageOf(streamed.replaceAll('gemini-3-flash-preview', 'gemini-2.5-flash'))).toMatchObject({ usage: { webSearchRequests: 1 } });
  });

  it('queries split over records are each counted; a query listed twice in one metadata is two searches', () => {
    const chunk = (parts: Json[], metadata?: Json, last = false): Json => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(metadata ? { groundingMetadata: metadata } : {}), ...(last ? { finishReason: 'STOP' } : {}) }],
      ...(last ? { usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 9, totalTokenCount: 14 } } : {}),
      modelVersion: 'gemini-3-pro-preview',
    });
    const sse = [chunk([{ text: 'One ' }], { webSearchQueries: ['a'] }), chunk([{ text: 'two.' }], { webSearchQueries: ['b', 'b'] }, true)].map(record).join('');
    expect(usageOf(sse)).toMatchObject({ usage: { webSearchRequests: 3 } });
    // The passthrough tap parses a record without usageMetadata when it carries grounding.
    expect(tap(sse)).toMatchObject({ inputTokens: 5, webSearchRequests: 3 });
  });

  it("the passthrough's usage tap counts the recorded stream as the decoder does", () => {
    expect(tap(streamed)).toMatchObject({ inputTokens: 297, webSearchRequests: 2 });
    expect(tap(streamed.replaceAll('gemini-3-flash-preview', 'gemini-2.5-flash'))).toMatchObject({ webSearchRequests: 1 });
  });

  it('no grounding, no count', () => {
    const plain = streamed.split('\r\n\r\n').filter(Boolean).map((r) => JSON.parse(r.slice(6)) as Json);
    for (const r of plain) delete r.candidates[0].groundingMetadata;
    const sse = plain.map(record).join('');
    expect((usageOf(sse) as Json).usage.webSearchRequests).toBeUndefined();
    expect(tap(sse)?.webSearchRequests).toBeUndefined();
  });
});
