import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { readJsonFixture } from '../stream-helpers.ts';

const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };

describe('chat decodeResponse', () => {
  it('reads text, tool calls, finish reason and usage (cached tokens are part of prompt_tokens)', () => {
    const response = chatCodec.decodeResponse(readJsonFixture('chat/response-tools.json'));
    expect(response).toEqual({
      id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      model: 'gpt-4o-2024-08-06',
      created: 1741570283,
      content: [
        { type: 'text', text: 'Let me check both.' },
        { type: 'tool_call', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', arguments: '{"location": "Paris"}' },
        { type: 'tool_call', id: 'call_noargs', name: 'get_location', arguments: '' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 1117, outputTokens: 46, cacheReadTokens: 1024 },
    });
  });

  it('reads reasoning_details in preference to the reasoning string', () => {
    const response = chatCodec.decodeResponse(readJsonFixture('chat/response-reasoning-details.json'));
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'Compare the numbers.', signature: 'ErUBCkYIBRgCIkDsig==' },
      { type: 'reasoning', text: '', redacted: true, data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
      { type: 'text', text: '9.11 is smaller.' },
    ]);
    expect(response.usage).toEqual({ inputTokens: 20, outputTokens: 60, reasoningTokens: 40 });
  });

  it("reads the stop sequence that ended the answer (vLLM's stop_reason, SGLang's matched_stop): a Messages client gets stop_sequence", () => {
    const body = readJsonFixture<Record<string, any>>('chat/response-vllm-stop.json');
    const response = chatCodec.decodeResponse(body);
    expect(response).toMatchObject({ finishReason: 'stop', stopSequence: '</answer>' });
    const messagesRequest = messagesCodec.decodeRequest({ model: 'm', max_tokens: 50, stop_sequences: ['</answer>'], messages: [{ role: 'user', content: 'q' }] });
    expect(messagesCodec.encodeResponse(response, messagesRequest)).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '</answer>' });
    const sglang = { ...body, choices: [{ ...body.choices[0], stop_reason: undefined, matched_stop: '</answer>' }] };
    expect(chatCodec.decodeResponse(sglang).stopSequence).toBe('</answer>');
    // An EOS token id (a number), or no stop string at all, is the model's own end: no sequence.
    for (const stop of [151645, null]) expect(chatCodec.decodeResponse({ ...body, choices: [{ ...body.choices[0], stop_reason: stop }] }).stopSequence).toBeUndefined();
    // Only a finish of `stop` is a stop sequence's.
    expect(chatCodec.decodeResponse({ ...body, choices: [{ ...body.choices[0], finish_reason: 'length' }] }).stopSequence).toBeUndefined();
  });

  it("reads DeepSeek's cache hits (prompt_cache_hit_tokens, no cached_tokens): billed as cache reads, a Messages client's input excludes them", () => {
    const body = readJsonFixture('chat/response-deepseek-cache.json');
    expect(chatCodec.decodeResponse(body).usage).toEqual({ inputTokens: 1800, outputTokens: 12, cacheReadTokens: 1664 });
    // A passthrough (a Chat client on DeepSeek) is billed from the same reading.
    expect(chatCodec.readPassthroughResponse(body).usage).toEqual({ inputTokens: 1800, outputTokens: 12, cacheReadTokens: 1664 });
    const messagesRequest = messagesCodec.decodeRequest({ model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'q' }] });
    expect(messagesCodec.encodeResponse(chatCodec.decodeResponse(body), messagesRequest).usage).toMatchObject({ input_tokens: 136, cache_read_input_tokens: 1664, output_tokens: 12 });
  });

  it('rejects a body without choices as a provider error', () => {
    expect(() => chatCodec.decodeResponse({ id: 'x' })).toThrow(expect.objectContaining({ code: 'provider_error' }));
  });
});

describe('chat encodeResponse', () => {
  const thinking = messagesCodec.decodeResponse(readJsonFixture('messages/response-thinking.json'));

  it('encodes an Anthropic answer: reasoning_content + reasoning_details with signatures, tool calls, usage', () => {
    const body = chatCodec.encodeResponse(thinking, request);
    expect(body).toMatchObject({ id: 'chatcmpl-msg_01ThinkFull', object: 'chat.completion', model: 'claude-sonnet-4-20250514' });
    const choice = (body.choices as Array<Record<string, any>>)[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message).toEqual({
      role: 'assistant',
      content: "Based on my analysis, I'll check.",
      refusal: null,
      reasoning_content: 'Let me analyze this step by step...',
      reasoning_details: [
        {
          type: 'reasoning.text',
          text: 'Let me analyze this step by step...',
          signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL==',
          format: 'anthropic-claude-v1',
          index: 0,
        },
        { type: 'reasoning.encrypted', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw', format: 'anthropic-claude-v1', index: 1 },
      ],
      tool_calls: [
        { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' } },
      ],
    });
    // Anthropic input 50 + cache writes 200 + cache reads 1000.
    expect(body.usage).toEqual({
      prompt_tokens: 1250,
      completion_tokens: 300,
      total_tokens: 1550,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('sends content null when the turn is only tool calls', () => {
    const response: ChatResponse = {
      id: 'r',
      model: 'm',
      created: 1,
      content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '' }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    const message = (chatCodec.encodeResponse(response, request).choices as Array<Record<string, any>>)[0].message;
    expect(message.content).toBeNull();
    // empty arguments (a no-argument call) go out as valid JSON
    expect(message.tool_calls[0].function.arguments).toBe('{}');
    expect(message).not.toHaveProperty('reasoning_content');
  });

  it('maps pause and refusal finishes (length: the paused turn is not finished; content_filter)', () => {
    const make = (finishReason: ChatResponse['finishReason']): string =>
      (chatCodec.encodeResponse({ id: 'r', model: 'm', created: 1, content: [], finishReason, usage: { inputTokens: 0, outputTokens: 0 } }, request).choices as Array<Record<string, any>>)[0]
        .finish_reason;
    expect(make('pause')).toBe('length');
    expect(make('content_filter')).toBe('content_filter');
    expect(make('length')).toBe('length');
  });

  it('round-trips its own reasoning_details through decodeResponse byte-exact', () => {
    const again = chatCodec.decodeResponse(chatCodec.encodeResponse(thinking, request));
    // Chat has no item for the web search call (its sources would show only as annotations).
    expect(again.content).toEqual(thinking.content.filter((part) => part.type !== 'web_search'));
  });
});
