/** One named test per chat/messages pitfall of wire-formats §4.9 (10 and 11 concern Responses only). */
import { describe, expect, it } from 'vitest';
import type { ChatRequest, Message } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { joinArguments, parseEvents, readFixture, runStream, translateStream } from '../stream-helpers.ts';

type Msg = Record<string, any>;
const opts = { upstreamModel: 'claude-sonnet-4' };

function request(messages: Message[], overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'm', system: [], messages, stream: false, ...overrides };
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('wire-formats §4.9 pitfalls', () => {
  it('pitfall 1: max_tokens is always sent to Messages and stays above the thinking budget', () => {
    expect(messagesCodec.encodeRequest(request([user('hi')]), opts).max_tokens).toBe(4096);
    const thinking = messagesCodec.encodeRequest(request([user('hi')], { maxTokens: 1000, reasoning: { enabled: true, budgetTokens: 2048 } }), opts);
    expect(thinking.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(thinking.max_tokens as number).toBeGreaterThan(2048);
    const high = messagesCodec.encodeRequest(request([user('hi')], { reasoning: { enabled: true, effort: 'high' } }), { ...opts, defaultMaxTokens: 4096 });
    expect(high.max_tokens as number).toBeGreaterThan(4096);
  });

  it('pitfall 2: no system role, same-role turns merged, empty text dropped, prefill not ending in whitespace', () => {
    const body = messagesCodec.encodeRequest(
      request([
        user('a'),
        { role: 'system', content: [{ type: 'text', text: 'mid-conversation rule' }] },
        user(''),
        user('b'),
        assistant('  '),
        assistant('Sure, here it is:  \n'),
      ]),
      opts,
    );
    expect(body.system).toBe('mid-conversation rule');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Sure, here it is:' }] },
    ]);
  });

  it('pitfall 3: tool results go in ONE user turn right after the call, first, with matching safe ids', () => {
    const body = messagesCodec.encodeRequest(
      chatCodec.decodeRequest({
        model: 'm',
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'functions.search:0', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
          { role: 'user', content: 'also this' },
          { role: 'tool', tool_call_id: 'functions.search:0', content: 'found' },
        ],
      }),
      opts,
    );
    const [, call, results] = body.messages as Msg[];
    expect(results.content.map((b: Msg) => b.type)).toEqual(['tool_result', 'text']);
    expect(results.content[0].tool_use_id).toBe(call.content[0].id);
    expect(call.content[0].id).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('pitfall 4: N Chat tool messages ↔ N tool_result blocks in one user turn; parallel_tool_calls:false ↔ disable_parallel_tool_use', () => {
    const chat = {
      model: 'm',
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'f' } }],
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: ['a', 'b', 'c'].map((id) => ({ id: `call_${id}`, type: 'function', function: { name: 'f', arguments: '{}' } })),
        },
        ...['a', 'b', 'c'].map((id) => ({ role: 'tool', tool_call_id: `call_${id}`, content: id })),
      ],
    };
    const body = messagesCodec.encodeRequest(chatCodec.decodeRequest(chat), opts);
    const turns = body.messages as Msg[];
    expect(turns).toHaveLength(3);
    expect(turns[2].content.map((b: Msg) => b.tool_use_id)).toEqual(['call_a', 'call_b', 'call_c']);
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });

    const back = chatCodec.encodeRequest(messagesCodec.decodeRequest(body), { upstreamModel: 'gpt-4o' });
    expect((back.messages as Msg[]).filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b', 'call_c']);
    expect(back.parallel_tool_calls).toBe(false);
  });

  it('pitfall 5: "" arguments become {} and the {} of content_block_start is never prepended', () => {
    const body = messagesCodec.encodeRequest(
      request([user('x'), { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'now', arguments: '' }] }]),
      opts,
    );
    expect((body.messages as Msg[])[1].content[0].input).toEqual({});
    const parts = runStream(messagesCodec, readFixture('messages/stream-tool-use.sse.txt'), 3);
    expect(joinArguments(parts, 0)).toBe('{"location": "San Francisco, CA"}');
    expect(JSON.parse(joinArguments(parts, 0))).toEqual({ location: 'San Francisco, CA' });
    const chat = translateStream(messagesCodec, chatCodec, request([]), readFixture('messages/stream-tool-use.sse.txt'));
    expect(chat).not.toContain('{}{');
  });

  it('pitfall 6: signatures and redacted data round-trip byte-exact in order; thinking forbids forced tool_choice and sampling', () => {
    const thinking = messagesCodec.decodeRequest(JSON.parse(readFixture('messages/request-tools.json')));
    const body = messagesCodec.encodeRequest({ ...thinking, toolChoice: 'required', temperature: 0.5, topK: 3 }, opts);
    const original = JSON.parse(readFixture('messages/request-tools.json')).messages[1].content.slice(0, 2);
    expect(JSON.stringify((body.messages as Msg[])[1].content.slice(0, 2))).toBe(JSON.stringify(original));
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_k');
  });

  it('pitfall 6b: unsigned (foreign) reasoning is never sent to Anthropic', () => {
    const body = messagesCodec.encodeRequest(
      request([user('x'), { role: 'assistant', content: [{ type: 'reasoning', text: 'from deepseek' }, { type: 'text', text: 'ok' }] }, user('y')]),
      opts,
    );
    expect((body.messages as Msg[])[1].content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('pitfall 7: reasoning_effort maps to budgets and back; an OpenAI stream yields no thinking blocks', () => {
    for (const [effort, budget] of [['low', 1024], ['medium', 2048], ['high', 4096]] as const) {
      const body = messagesCodec.encodeRequest(chatCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], reasoning_effort: effort }), opts);
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
      expect(chatCodec.encodeRequest(messagesCodec.decodeRequest(body), { upstreamModel: 'gpt-4o' }).reasoning_effort).toBe(effort);
    }
    const events = parseEvents(translateStream(chatCodec, messagesCodec, request([]), readFixture('chat/stream-text-usage.sse.txt')));
    expect(events.some((e) => e.data.content_block?.type === 'thinking')).toBe(false);
  });

  it('pitfall 8: usage is converted, never copied (Anthropic input excludes cache)', () => {
    const ir = messagesCodec.decodeResponse({ id: 'm', model: 'c', content: [], stop_reason: 'end_turn', usage: { input_tokens: 10, cache_read_input_tokens: 90, cache_creation_input_tokens: 5, output_tokens: 3 } });
    expect(ir.usage.inputTokens).toBe(105);
    const chat = chatCodec.encodeResponse(ir, request([]));
    expect(chat.usage).toMatchObject({ prompt_tokens: 105, prompt_tokens_details: { cached_tokens: 90, cache_write_tokens: 5 } });
    const anthropic = messagesCodec.encodeResponse(chatCodec.decodeResponse({ choices: [{ message: { content: 'x' }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 60 } } }), request([]));
    expect(anthropic.usage).toEqual({ input_tokens: 40, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 60 });
  });

  it('pitfall 9: Chat usage after the finish chunk reaches message_delta; Anthropic usage reaches the Chat usage chunk', () => {
    const toMessages = parseEvents(translateStream(chatCodec, messagesCodec, request([]), readFixture('chat/stream-parallel-tools.sse.txt')));
    expect(toMessages.at(-2)?.data.usage).toMatchObject({ input_tokens: 82, output_tokens: 47 });
    const toChat = parseEvents(translateStream(messagesCodec, chatCodec, request([], { includeUsage: true }), readFixture('messages/stream-tool-use.sse.txt')));
    expect(toChat.at(-2)?.data.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
    expect(toChat.at(-3)?.data.choices[0].finish_reason).toBe('tool_calls');
  });

  it('pitfall 12: only jpeg/png/gif/webp images go to Anthropic; detail is dropped', () => {
    const bmp = request([{ role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/bmp', data: 'Qk0=' } }] }]);
    expect(() => messagesCodec.encodeRequest(bmp, opts)).toThrow(expect.objectContaining({ code: 'validation_error', status: 422 }));
    const png = request([{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'data:image/png;base64,iVBO' }, detail: 'low' }] }]);
    expect((messagesCodec.encodeRequest(png, opts).messages as Msg[])[0].content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } });
  });

  it('pitfall 12b: audio input cannot go to Anthropic (422)', () => {
    const audio = request([{ role: 'user', content: [{ type: 'audio', data: 'UklGR', format: 'wav' }] }]);
    expect(() => messagesCodec.encodeRequest(audio, opts)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });

  it('pitfall 13: unknown SSE events, block types, delta types and fields are tolerated', () => {
    const anthropic = runStream(messagesCodec, readFixture('messages/stream-thinking.sse.txt'), 2);
    expect(anthropic.at(-1)).toEqual({ type: 'end' });
    const chat = runStream(
      chatCodec,
      [
        'event: surprise\ndata: {"whatever":true}',
        'data: {"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{"content":"hi","annotations":[]},"future_field":1}],"obfuscation":"zz"}',
        'data: {"id":"c","model":"m","created":1,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        'data: [DONE]',
        '',
      ].join('\n\n'),
      3,
    );
    expect(chat.map((p) => p.type)).toEqual(['start', 'text-start', 'text-delta', 'text-end', 'finish', 'end']);
    expect(chat[0]).toEqual({ type: 'start', id: 'c', model: 'm', created: 1 });
  });
});
