import { describe, expect, it, vi } from 'vitest';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { readFixture, readJsonFixture, sseRecords } from '../stream-helpers.ts';

describe('chat passthrough', () => {
  it('reads id, model and usage from a response', () => {
    expect(chatCodec.readPassthroughResponse(readJsonFixture('chat/response-tools.json'))).toEqual({
      id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      model: 'gpt-4o-2024-08-06',
      usage: { inputTokens: 1117, outputTokens: 46, cacheReadTokens: 1024 },
      finishReason: 'tool_calls',
    });
  });

  it('taps usage from a stream (usage chunk after finish)', () => {
    const tap = chatCodec.createUsageTap();
    for (const record of sseRecords(readFixture('chat/stream-text-usage.sse.txt'), 13)) tap.push(record);
    expect(tap.info).toEqual({
      id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      model: 'gpt-4o-2024-08-06',
      usage: { inputTokens: 19, outputTokens: 10, cacheReadTokens: 4 },
      finishReason: 'stop',
    });
  });

  it('only parses records carrying a usage object (and the first, for its identity)', () => {
    const tap = chatCodec.createUsageTap();
    tap.push({ data: '{"id":"c1","model":"m","choices":[],"usage":null}' });
    // Not JSON, but it has no usage object, so the tap must not even try to parse it.
    tap.push({ data: '{"broken' });
    tap.push({ data: '{"id":"c1","model":"m","choices":[],"usage": {"prompt_tokens": 3, "completion_tokens": 4}}' });
    tap.push({ data: '[DONE]' });
    expect(tap.info).toEqual({ id: 'c1', model: 'm', usage: { inputTokens: 3, outputTokens: 4 } });
  });

  it('takes id and model from the usage chunk and leaves the first chunk unparsed', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const tap = chatCodec.createUsageTap();
      tap.push({ data: '{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}' });
      tap.push({ data: '{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}' });
      tap.push({ data: '{"id":"c1","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}' });
      tap.push({ data: '[DONE]' });
      expect(tap.info).toEqual({ id: 'c1', model: 'm', usage: { inputTokens: 3, outputTokens: 4 } });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('does not search a record its relay found unmarked (no `"usage"` in its chunk\'s bytes), but still takes the first chunk\'s identity from it', () => {
    const tap = chatCodec.createUsageTap();
    tap.push({ data: '{"id":"c1","model":"m","choices":[{"delta":{"content":"hi"}}]}' }, false);
    tap.push({ data: '{"id":"c1","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}' }, false);
    expect(tap.info).toEqual({ id: 'c1', model: 'm' });
    const marked = chatCodec.createUsageTap();
    marked.push({ data: '{"id":"c1","model":"m","choices":[{"delta":{"content":"hi"}}]}' }, false);
    marked.push({ data: '{"id":"c1","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}' }, true);
    expect(marked.info).toEqual({ id: 'c1', model: 'm', usage: { inputTokens: 3, outputTokens: 4 } });
  });

  it('takes id and model from the first chunk when the usage chunk does not name them', () => {
    const tap = chatCodec.createUsageTap();
    tap.push({ data: '{"id":"c1","model":"m","choices":[{"delta":{"content":"hi"}}]}' });
    tap.push({ data: '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}' });
    expect(tap.info).toEqual({ id: 'c1', model: 'm', usage: { inputTokens: 3, outputTokens: 4 } });
    expect(tap.info).toEqual({ id: 'c1', model: 'm', usage: { inputTokens: 3, outputTokens: 4 } });
  });

  it('has no usage when the stream was cut before the usage chunk', () => {
    const tap = chatCodec.createUsageTap();
    const text = readFixture('chat/stream-text-usage.sse.txt').split('\n\n').slice(0, 5).join('\n\n') + '\n\n';
    for (const record of sseRecords(text)) tap.push(record);
    expect(tap.info.usage).toBeUndefined();
    expect(tap.info.id).toBe('chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT');
  });
});
