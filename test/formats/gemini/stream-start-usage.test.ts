/**
 * What a Gemini stream's first record says of the prompt reaches a converted stream's start: the
 * input tokens and, of them, those read from Google's cache (`cachedContentTokenCount`, implicit
 * caching). A Messages client reads both in `message_start`, as Anthropic sends them.
 */
import { describe, expect, it } from 'vitest';
import { geminiCodec } from '../../../src/formats/gemini/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { parseEvents, runStream, translateStream } from '../stream-helpers.ts';

type Json = Record<string, any>;

const record = (body: Json) => `data: ${JSON.stringify(body)}\r\n\r\n`;
const usage = { promptTokenCount: 120, cachedContentTokenCount: 100, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 120 }], cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 100 }] };
// Google's records: usageMetadata on each, the prompt's counts from the first on.
const SSE = [
  record({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hi ' }] }, index: 0 }], usageMetadata: { ...usage, totalTokenCount: 120 }, modelVersion: 'gemini-2.5-flash', responseId: 'r1' }),
  record({ candidates: [{ content: { role: 'model', parts: [{ text: 'there' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { ...usage, candidatesTokenCount: 2, totalTokenCount: 122 }, modelVersion: 'gemini-2.5-flash', responseId: 'r1' }),
].join('');

describe('a Gemini stream: the prompt usage at its start', () => {
  it('the start part carries the cached input tokens with the input tokens', () => {
    // Before: { inputTokens: 120 } alone.
    expect(runStream(geminiCodec, SSE)[0]).toMatchObject({ type: 'start', usage: { inputTokens: 120, cacheReadTokens: 100 } });
  });

  it("a Messages client's message_start says the cache read, as its message_delta does", () => {
    const request = { ...messagesCodec.decodeRequest({ model: 'x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }), stream: true };
    const events = parseEvents(translateStream(geminiCodec, messagesCodec, request, SSE)).map((event) => event.data as Json);
    const start = events.find((event) => event.type === 'message_start')!.message.usage;
    const delta = events.find((event) => event.type === 'message_delta')!.usage;
    // Before: message_start said input_tokens 120, cache_read_input_tokens 0; message_delta 20 and 100.
    expect([start.input_tokens, start.cache_read_input_tokens]).toEqual([20, 100]);
    expect([delta.input_tokens, delta.cache_read_input_tokens]).toEqual([20, 100]);
  });
});
