import { describe, expect, it } from 'vitest';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { readFixture, readJsonFixture, recordsSplit } from './helpers.ts';

describe('responses passthrough readers', () => {
  it('reads id, model and usage from a response body', () => {
    expect(responsesCodec.readPassthroughResponse(readJsonFixture('response-tool-call.json'))).toEqual({
      id: 'resp_68af0009json',
      model: 'gpt-5-mini-2025-08-07',
      usage: { inputTokens: 50, outputTokens: 60, cacheReadTokens: 32, reasoningTokens: 40 },
      finishReason: 'completed',
    });
    expect(responsesCodec.readPassthroughResponse('nope')).toEqual({});
  });

  it('taps usage from a stream and tracks the last sequence number', () => {
    const tap = responsesCodec.createUsageTap();
    for (const record of recordsSplit(readFixture('reasoning.sse.txt'), 8)) tap.push(record);
    expect(tap.info).toEqual({ id: 'resp_68af0004rs', model: 'gpt-5-mini-2025-08-07', usage: { inputTokens: 30, outputTokens: 200, reasoningTokens: 160 }, finishReason: 'completed' });
    const text = readFixture('reasoning.sse.txt');
    const last = text.match(/"sequence_number":(\d+)/g)!.at(-1)!;
    expect(tap.lastSequenceNumber).toBe(Number(last.split(':')[1]));
  });

  it('taps usage from response.incomplete and from records without event lines', () => {
    const tap = responsesCodec.createUsageTap();
    for (const record of recordsSplit(readFixture('incomplete.sse.txt'), 2)) tap.push(record);
    expect(tap.info.usage).toEqual({ inputTokens: 10, outputTokens: 16 });
    const bare = responsesCodec.createUsageTap();
    for (const record of recordsSplit(readFixture('unknown-events.sse.txt'), 4)) bare.push(record);
    // Its completed output holds one web_search_call: a billed search.
    expect(bare.info.usage).toEqual({ inputTokens: 300, outputTokens: 5, webSearchRequests: 1 });
  });

  it('parses only the lifecycle records', () => {
    const tap = responsesCodec.createUsageTap();
    const spy = JSON.parse;
    let calls = 0;
    JSON.parse = ((...args: Parameters<typeof JSON.parse>) => {
      calls++;
      return spy(...args);
    }) as typeof JSON.parse;
    try {
      for (const record of recordsSplit(readFixture('text-turn.sse.txt'), 1)) tap.push(record);
    } finally {
      JSON.parse = spy;
    }
    expect(calls).toBe(2); // response.created and response.completed only
  });
});

describe("a Responses passthrough of a history another vendor's model wrote (a client switching to an OpenAI model)", () => {
  it("takes out the reasoning items OpenAI cannot read, gives carried call ids and call item ids back, and leaves OpenAI's own items and other bodies alone", async () => {
    const { getFormat } = await import('../../../src/formats/index.ts');
    const { carryOpaque, toolIdForClient } = await import('../../../src/formats/shared/index.ts');
    const prepare = getFormat('responses').passthrough.prepare!;
    const plain = { model: 'gpt-5', input: [{ type: 'reasoning', id: 'rs_0123', summary: [], encrypted_content: 'gAAAAB-openai' }, { type: 'function_call', id: 'fc_0123', call_id: 'call_1', name: 'f', arguments: '{}' }] };
    expect(prepare({ body: plain, raw: JSON.stringify(plain), stream: false })).toBeUndefined();
    const geminiCall = toolIdForClient('gwcall_1', { google: { thoughtSignature: 'c2ln' } });
    const body = {
      model: 'gpt-5',
      input: [
        { role: 'user', content: 'q' },
        // Claude's signed thinking, Gemini's unsigned thought (a made-up id, no content), OpenAI's own reasoning carried through.
        { type: 'reasoning', id: 'rs_gw0123456789abcdef01234567', summary: [], encrypted_content: carryOpaque({ signature: 'EqQB' }) },
        { type: 'reasoning', id: 'rs_gw89abcdef0123456789abcdef', summary: [{ type: 'summary_text', text: 'hmm' }] },
        { type: 'reasoning', id: 'rs_gwfedcba9876543210fedcba98', summary: [], encrypted_content: carryOpaque({ id: 'rs_openai', encrypted: 'gAAAAB-openai' }) },
        { type: 'function_call', id: `fc_${geminiCall}`, call_id: geminiCall, name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: geminiCall, output: 'ok' },
        // A stored response's item: the gateway's own, kept.
        { type: 'reasoning', id: `rs_gw${'a'.repeat(48)}o0`, summary: [] },
      ],
    };
    const prepared = prepare({ body, raw: JSON.stringify(body), stream: false }) as unknown as { body: { input: Array<Record<string, unknown>> }; adapted?: string[] };
    expect(prepared.adapted).toEqual(['reasoning=dropped(2)']);
    expect(prepared.body.input).toEqual([
      { role: 'user', content: 'q' },
      { type: 'reasoning', id: 'rs_openai', summary: [], encrypted_content: 'gAAAAB-openai' },
      { type: 'function_call', id: 'fc_gwcall_1', call_id: 'gwcall_1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'gwcall_1', output: 'ok' },
      { type: 'reasoning', id: `rs_gw${'a'.repeat(48)}o0`, summary: [] },
    ]);
  });
});
