import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { readFixture, readJsonFixture, sseRecords } from '../stream-helpers.ts';

describe('messages passthrough', () => {
  it('reads id, model and converted usage from a response', () => {
    expect(messagesCodec.readPassthroughResponse(readJsonFixture('messages/response-thinking.json'))).toEqual({
      id: 'msg_01ThinkFull',
      model: 'claude-sonnet-4-20250514',
      usage: { inputTokens: 1250, outputTokens: 300, cacheReadTokens: 1000, cacheWriteTokens: 200 },
      finishReason: 'tool_use',
    });
  });

  it('taps usage from message_start and the cumulative message_delta', () => {
    const tap = messagesCodec.createUsageTap();
    for (const record of sseRecords(readFixture('messages/stream-text.sse.txt'), 7)) tap.push(record);
    expect(tap.info).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      model: 'claude-sonnet-4-20250514',
      usage: { inputTokens: 2125, outputTokens: 15, cacheReadTokens: 2000, cacheWriteTokens: 100 },
      finishReason: 'end_turn',
    });
  });

  it('ignores every other event without parsing it', () => {
    const tap = messagesCodec.createUsageTap();
    tap.push({ event: 'message_start', data: '{"type":"message_start","message":{"id":"msg_a","model":"c","usage":{"input_tokens":5,"output_tokens":1}}}' });
    tap.push({ event: 'content_block_delta', data: '{"broken' });
    tap.push({ event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}' });
    expect(tap.info).toEqual({ id: 'msg_a', model: 'c', usage: { inputTokens: 5, outputTokens: 9 }, finishReason: 'end_turn' });
  });

  it('keeps the input usage of message_start when the stream is cut', () => {
    const tap = messagesCodec.createUsageTap();
    for (const record of sseRecords(readFixture('messages/stream-error.sse.txt'))) tap.push(record);
    expect(tap.info.usage).toEqual({ inputTokens: 12, outputTokens: 1 });
  });
});
