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
