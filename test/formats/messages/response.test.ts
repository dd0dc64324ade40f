import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { readJsonFixture } from '../stream-helpers.ts';

const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };

describe('messages decodeResponse', () => {
  const response = messagesCodec.decodeResponse(readJsonFixture('messages/response-thinking.json'));

  it('reads thinking, redacted thinking, text, the web search call and tool_use in order', () => {
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'Let me analyze this step by step...', signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL==' },
      { type: 'reasoning', text: '', redacted: true, data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' },
      { type: 'text', text: "Based on my analysis, I'll check." },
      { type: 'web_search', id: 'srvtoolu_01', query: 'x' },
      { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
    ]);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.id).toBe('msg_01ThinkFull');
  });

  it('converts usage: IR input includes cache reads and writes', () => {
    expect(response.usage).toEqual({ inputTokens: 1250, outputTokens: 300, cacheReadTokens: 1000, cacheWriteTokens: 200 });
  });

  it('keeps the matched stop sequence', () => {
    const stopped = messagesCodec.decodeResponse({ id: 'm', model: 'c', content: [{ type: 'text', text: 'a' }], stop_reason: 'stop_sequence', stop_sequence: 'END', usage: { input_tokens: 1, output_tokens: 1 } });
    expect(stopped).toMatchObject({ finishReason: 'stop', stopSequence: 'END' });
  });

  it('rejects a body without content as a provider error', () => {
    expect(() => messagesCodec.decodeResponse({ type: 'message' })).toThrow(expect.objectContaining({ code: 'provider_error' }));
  });
});

describe('messages encodeResponse', () => {
  it('reports reasoning tokens as output_tokens_details.thinking_tokens (only when known)', () => {
    const base: ChatResponse = { id: 'msg_1', model: 'm', created: 1, content: [], finishReason: 'stop', usage: { inputTokens: 100, outputTokens: 50, cacheReadTokens: 40, cacheWriteTokens: 10, reasoningTokens: 20 } };
    expect(messagesCodec.encodeResponse(base, request).usage).toEqual({
      input_tokens: 50, output_tokens: 50, cache_creation_input_tokens: 10, cache_read_input_tokens: 40, output_tokens_details: { thinking_tokens: 20 },
    });
    expect(messagesCodec.encodeResponse({ ...base, usage: { inputTokens: 3, outputTokens: 2 } }, request).usage).not.toHaveProperty('output_tokens_details');
  });

  it('gives Messages clients msg_ ids (an upstream msg_ id is kept)', () => {
    const base: ChatResponse = { id: 'resp_68af', model: 'm', created: 1, content: [{ type: 'text', text: 'a' }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    expect(messagesCodec.encodeResponse(base, request).id).toBe('msg_resp_68af');
    expect(messagesCodec.encodeResponse({ ...base, id: 'msg_01Keep' }, request).id).toBe('msg_01Keep');
  });

  it('encodes a Chat answer as a Message: tool_use input parsed, usage converted back (input excludes cache)', () => {
    const chat = chatCodec.decodeResponse(readJsonFixture('chat/response-tools.json'));
    expect(messagesCodec.encodeResponse(chat, request)).toEqual({
      id: 'msg_chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-2024-08-06',
      content: [
        { type: 'text', text: 'Let me check both.' },
        { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } },
        { type: 'tool_use', id: 'call_noargs', name: 'get_location', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 93, output_tokens: 46, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024 },
    });
  });

  it('round-trips its own output with thinking signatures byte-exact', () => {
    const original = readJsonFixture('messages/response-thinking.json');
    const again = messagesCodec.encodeResponse(messagesCodec.decodeResponse(original), request);
    const blocks = original.content as Array<{ type: string }>;
    expect((again.content as unknown[]).map((b) => JSON.stringify(b))).toEqual(
      blocks.map((b) => JSON.stringify(b.type === 'text' ? { type: 'text', text: (b as unknown as { text: string }).text } : b)),
    );
    expect(again.usage).toEqual({ input_tokens: 50, output_tokens: 300, cache_creation_input_tokens: 200, cache_read_input_tokens: 1000 });
  });

  it('maps finish reasons (length → max_tokens, content_filter → refusal, pause → pause_turn)', () => {
    const make = (finishReason: ChatResponse['finishReason']) =>
      messagesCodec.encodeResponse({ id: 'r', model: 'm', created: 1, content: [], finishReason, usage: { inputTokens: 0, outputTokens: 0 } }, request).stop_reason;
    expect(make('length')).toBe('max_tokens');
    expect(make('content_filter')).toBe('refusal');
    expect(make('pause')).toBe('pause_turn');
    expect(make('stop')).toBe('end_turn');
  });

  it('shows unsigned reasoning from other providers as thinking with an empty signature', () => {
    const body = messagesCodec.encodeResponse(
      { id: 'r', model: 'm', created: 1, content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'ok' }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      request,
    );
    expect(body.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: '' },
      { type: 'text', text: 'ok' },
    ]);
  });
});
