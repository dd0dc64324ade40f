/**
 * GET /v1/generation's finish reasons: OpenRouter's normalized word in `finish_reason`, the one the
 * ledger line kept (the upstream's own on a passthrough) in `native_finish_reason`; and the
 * passthrough taps that read it from a stream without parsing its text chunks.
 */
import { describe, expect, it } from 'vitest';
import { createChatUsageTap } from '../../src/formats/chat/index.ts';
import { createMessagesUsageTap } from '../../src/formats/messages/index.ts';
import { buildGenerationView } from '../../src/usage/index.ts';

const chunk = (choice: string) => `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[${choice}]}`;

describe('finish reasons of a settled request', () => {
  it('normalizes Anthropic, Google and Responses words as OpenRouter does, and keeps the native one', () => {
    const view = (finish_reason?: string) => {
      const { data } = buildGenerationView({ request_id: 'req_1', ts: 0, account_id: 'a', key_id: 'k', model: 'p/m', provider: 'p', endpoint: '/v1/messages', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 0, estimated: false, aborted: false, finish_reason } as never);
      return [data.finish_reason, data.native_finish_reason];
    };
    expect(view('end_turn')).toEqual(['stop', 'end_turn']);
    expect(view('max_tokens')).toEqual(['length', 'max_tokens']);
    expect(view('tool_use')).toEqual(['tool_calls', 'tool_use']);
    expect(view('refusal')).toEqual(['content_filter', 'refusal']);
    expect(view('MAX_TOKENS')).toEqual(['length', 'MAX_TOKENS']);
    expect(view('SAFETY')).toEqual(['content_filter', 'SAFETY']);
    expect(view('completed')).toEqual(['stop', 'completed']);
    expect(view('incomplete')).toEqual(['length', 'incomplete']);
    expect(view('tool_calls')).toEqual(['tool_calls', 'tool_calls']);
    expect(view('something_new')).toEqual(['something_new', 'something_new']);
    expect(view('constructor')).toEqual(['constructor', 'constructor']);
    expect(view(undefined)).toEqual([null, null]);
  });

  it("reads a passed-through Chat stream's finish reason from its last chunks: before the usage chunk, with it, spaced, never null", () => {
    const read = (records: string[]) => {
      const tap = createChatUsageTap();
      for (const data of records) tap.push({ data });
      return tap.info.finishReason;
    };
    const text = chunk('{"index":0,"delta":{"content":"hi"},"finish_reason":null}');
    const usage = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
    expect(read([text, chunk('{"index":0,"delta":{},"finish_reason":"stop"}'), '[DONE]'])).toBe('stop');
    expect(read([text, chunk('{"index":0,"delta":{},"finish_reason":"tool_calls"}'), usage, '[DONE]'])).toBe('tool_calls');
    expect(read([text, chunk('{"index": 0, "delta": {}, "finish_reason": "length"}'), usage])).toBe('length');
    expect(read([text, text.replace('"choices":[', '"usage":{"prompt_tokens":1,"completion_tokens":1},"choices":[').replace('null', '"stop"')])).toBe('stop');
    expect(read([text, chunk('{"index":0,"delta":{},"finish_reason":null},{"index":1,"delta":{},"finish_reason":"length"}'), '[DONE]'])).toBe('length');
    // Content-filter chunks after the finish (Azure) leave it found.
    const filtered = chunk('{"index":0,"delta":{},"finish_reason":null,"content_filter_results":{}}');
    expect(read([text, chunk('{"index":0,"delta":{},"finish_reason":"stop"}'), filtered, filtered, usage, '[DONE]'])).toBe('stop');
    expect(read([text, text, '[DONE]'])).toBeUndefined();
    expect(read([])).toBeUndefined();
  });

  it("reads a passed-through Messages stream's stop reason from message_delta", () => {
    const tap = createMessagesUsageTap();
    tap.push({ event: 'message_start', data: '{"type":"message_start","message":{"id":"msg_1","model":"claude","stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}' });
    expect(tap.info.finishReason).toBeUndefined();
    tap.push({ event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}' });
    tap.push({ event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":9}}' });
    expect(tap.info).toMatchObject({ id: 'msg_1', finishReason: 'max_tokens', usage: { outputTokens: 9 } });
  });
});
