/**
 * Anthropic's 1-hour cache writes (`usage.cache_creation.ephemeral_1h_input_tokens`) reach the
 * IR's `cacheWrite1hTokens` from JSON answers, streams and the passthrough tap, and go back out
 * as `cache_creation` when Messages usage is encoded; other formats' usage is unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { parseEvents, readFixture, readJsonFixture, runStream, sseRecords, translateStream } from '../stream-helpers.ts';

const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };
/** The fixtures' usage: 40 uncached + 3,000 written (1,000 for 5 minutes, 2,000 for an hour) + 500 read. */
const USAGE = { inputTokens: 3540, outputTokens: 12, cacheReadTokens: 500, cacheWriteTokens: 3000, cacheWrite1hTokens: 2000 };
const WIRE_USAGE = {
  input_tokens: 40,
  output_tokens: 12,
  cache_creation_input_tokens: 3000,
  cache_read_input_tokens: 500,
  cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
};

describe('messages 1-hour cache writes', () => {
  it('reads the 1-hour part of the writes from a JSON answer', () => {
    expect(messagesCodec.decodeResponse(readJsonFixture('messages/response-cache-1h.json')).usage).toEqual(USAGE);
  });

  it.each([0, 7, 64])('reads it from message_start and keeps it through the cumulative message_delta (split %i)', (split) => {
    const parts = runStream(messagesCodec, readFixture('messages/stream-cache-1h.sse.txt'), split);
    expect(parts[0]).toMatchObject({ type: 'start', usage: { inputTokens: 3540, cacheReadTokens: 500, cacheWriteTokens: 3000, cacheWrite1hTokens: 2000 } });
    expect(parts.find((p) => p.type === 'usage')).toEqual({ type: 'usage', usage: USAGE });
  });

  it('reads it in the passthrough response reader and the passthrough usage tap', () => {
    expect(messagesCodec.readPassthroughResponse(readJsonFixture('messages/response-cache-1h.json')).usage).toEqual(USAGE);
    const tap = messagesCodec.createUsageTap();
    for (const record of sseRecords(readFixture('messages/stream-cache-1h.sse.txt'), 5)) tap.push(record);
    expect(tap.info).toEqual({ id: 'msg_01Cache1hStream', model: 'claude-sonnet-4-5-20250929', usage: USAGE, finishReason: 'end_turn' });
  });

  it('takes the split alone when the sum is missing, and clamps a 1-hour count above the writes', () => {
    const split = { input_tokens: 1, output_tokens: 2, cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 70 } };
    expect(messagesCodec.readPassthroughResponse({ usage: split }).usage).toEqual({ inputTokens: 101, outputTokens: 2, cacheWriteTokens: 100, cacheWrite1hTokens: 70 });
    const confused = { ...split, cache_creation_input_tokens: 50 };
    expect(messagesCodec.readPassthroughResponse({ usage: confused }).usage).toEqual({ inputTokens: 51, outputTokens: 2, cacheWriteTokens: 50, cacheWrite1hTokens: 50 });
    const only5m = { input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 30, cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 0 } };
    expect(messagesCodec.readPassthroughResponse({ usage: only5m }).usage).toEqual({ inputTokens: 31, outputTokens: 2, cacheWriteTokens: 30 });
  });

  it('writes cache_creation back when encoding a Messages answer, and only with a 1-hour part', () => {
    const response = messagesCodec.decodeResponse(readJsonFixture('messages/response-cache-1h.json'));
    expect(messagesCodec.encodeResponse(response, request).usage).toEqual(WIRE_USAGE);
    const fiveMinutes: ChatResponse = { ...response, usage: { inputTokens: 3540, outputTokens: 12, cacheReadTokens: 500, cacheWriteTokens: 3000 } };
    expect(messagesCodec.encodeResponse(fiveMinutes, request).usage).not.toHaveProperty('cache_creation');
  });

  it('writes cache_creation in the encoded stream (message_start and message_delta)', () => {
    const events = parseEvents(translateStream(messagesCodec, messagesCodec, request, readFixture('messages/stream-cache-1h.sse.txt'), 9));
    expect(events[0].data.message.usage).toEqual({ ...WIRE_USAGE, output_tokens: 0 });
    expect(events.find((e) => e.event === 'message_delta')?.data.usage).toEqual(WIRE_USAGE);
  });

  it('leaves the other formats’ usage as it was (no TTL split there)', () => {
    const response = messagesCodec.decodeResponse(readJsonFixture('messages/response-cache-1h.json'));
    expect(chatCodec.encodeResponse(response, request).usage).toEqual(chatCodec.encodeResponse({ ...response, usage: { ...USAGE, cacheWrite1hTokens: undefined } }, request).usage);
  });
});
