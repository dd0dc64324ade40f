/**
 * Conversions there and back: chat → IR → messages → IR → chat keeps tool ids, arguments and
 * order; thinking signatures survive a full Anthropic → Chat client → Anthropic loop byte-exact.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/types.ts';
import { chatCodec, encodeChatRequest } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { sanitizeToolId } from '../../../src/formats/shared/index.ts';
import { parseEvents, readFixture, readJsonFixture, translateStream } from '../stream-helpers.ts';

type Msg = Record<string, any>;

function chatToMessagesToChat(body: unknown): Msg {
  const ir = chatCodec.decodeRequest(body);
  const upstream = messagesCodec.encodeRequest(ir, { upstreamModel: 'claude' });
  return chatCodec.encodeRequest(messagesCodec.decodeRequest(upstream), { upstreamModel: 'gpt-4o' });
}

describe('round trips', () => {
  it('chat → IR → messages → IR → chat keeps tool ids (safe ones unchanged), arguments and order', () => {
    const original = readJsonFixture('chat/request-tools.json');
    const back = chatToMessagesToChat(original);
    const messages = back.messages as Msg[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'tool', 'tool', 'user']);
    const calls = messages[3].tool_calls as Msg[];
    expect(calls[0]).toEqual({ id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } });
    // The foreign id was sanitised once, the same way on the call and on its result.
    expect(calls[1].id).toBe(sanitizeToolId('functions.get_time:1'));
    expect(calls[1].function.arguments).toBe('{}');
    expect(messages[4]).toEqual({ role: 'tool', tool_call_id: calls[0].id, content: '18°C, cloudy' });
    expect(messages[5]).toEqual({ role: 'tool', tool_call_id: calls[1].id, content: '14:05' });
    expect(messages[6]).toEqual({ role: 'user', content: 'Thanks! Anything else?' });
    expect(back).toMatchObject({ max_tokens: 900, stop: ['END'], user: 'user-42', tool_choice: 'required', parallel_tool_calls: false });
  });

  it('chat → IR → messages → IR → chat keeps signed reasoning_details byte-exact and in order', () => {
    const details = [
      { type: 'reasoning.text', text: 'First thought.', signature: 'c2lnLTE=', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.encrypted', data: 'cmVkYWN0ZWQ=', format: 'anthropic-claude-v1', index: 1 },
      { type: 'reasoning.text', text: 'Second thought.', signature: 'c2lnLTI=', format: 'anthropic-claude-v1', index: 2 },
    ];
    const original = {
      model: 'claude',
      reasoning_effort: 'medium',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, reasoning_details: details, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      ],
    };
    const upstream = messagesCodec.encodeRequest(chatCodec.decodeRequest(original), { upstreamModel: 'claude' });
    expect((upstream.messages as Msg[])[1].content.slice(0, 3)).toEqual([
      { type: 'thinking', thinking: 'First thought.', signature: 'c2lnLTE=' },
      { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
      { type: 'thinking', thinking: 'Second thought.', signature: 'c2lnLTI=' },
    ]);
    expect(upstream.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const back = encodeChatRequest(messagesCodec.decodeRequest(upstream), { upstreamModel: 'openrouter/claude', assistantReasoning: 'send' });
    const assistant = (back.messages as Msg[])[1];
    expect(JSON.stringify(assistant.reasoning_details)).toBe(JSON.stringify(details));
    expect(assistant.reasoning_content).toBe('First thought.Second thought.');
    expect(assistant.tool_calls[0]).toEqual({ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } });
  });

  it('chat response → IR → messages response → IR → chat response keeps signatures', () => {
    const original = readJsonFixture('chat/response-reasoning-details.json');
    const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };
    const anthropic = messagesCodec.encodeResponse(chatCodec.decodeResponse(original), request);
    const back = chatCodec.encodeResponse(messagesCodec.decodeResponse(anthropic), request);
    const message = (back.choices as Msg[])[0].message;
    const originalMessage = (original.choices as Msg[])[0].message;
    expect(message.reasoning_details).toEqual(originalMessage.reasoning_details);
    expect(message.reasoning_content).toBe(originalMessage.reasoning);
    expect(message.content).toBe(originalMessage.content);
  });

  it('messages → IR → chat → IR → messages keeps tool_use ids, inputs and the tool_result grouping', () => {
    const original = readJsonFixture('messages/request-tools.json');
    const chat = chatCodec.encodeRequest(messagesCodec.decodeRequest(original), { upstreamModel: 'gpt-4o' });
    const back = messagesCodec.encodeRequest(chatCodec.decodeRequest(chat), { upstreamModel: 'claude' });
    const turns = back.messages as Msg[];
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[1].content.filter((b: Msg) => b.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'Paris' } },
      { type: 'tool_use', id: 'toolu_01NoArgs', name: 'get_weather', input: {} },
    ]);
    // Both results first, then the radar image Chat had to move out of the tool message, then the text.
    expect(turns[2].content.map((b: Msg) => [b.type, b.tool_use_id])).toEqual([
      ['tool_result', 'toolu_01A09q90qw90lq917835lq9'],
      ['tool_result', 'toolu_01NoArgs'],
      ['image', undefined],
      ['text', undefined],
    ]);
  });

  it('thinking survives Anthropic → Chat client → Anthropic (non-streamed) byte-exact and in order', () => {
    const original = readJsonFixture('messages/response-thinking.json');
    const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };
    const chatMessage = (chatCodec.encodeResponse(messagesCodec.decodeResponse(original), request).choices as Msg[])[0].message;
    // The Chat client sends the assistant message back as it got it, plus the tool result.
    const next = chatCodec.decodeRequest({
      model: 'claude',
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'weather?' }, chatMessage, { role: 'tool', tool_call_id: chatMessage.tool_calls[0].id, content: '15°C' }],
    });
    const upstream = messagesCodec.encodeRequest(next, { upstreamModel: 'claude' });
    const assistant = (upstream.messages as Msg[])[1].content as Msg[];
    const originalBlocks = (original.content as Msg[]).filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
    expect(assistant.slice(0, 2)).toEqual(originalBlocks);
    expect(JSON.stringify(assistant.slice(0, 2))).toBe(JSON.stringify(originalBlocks));
    expect(upstream.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('thinking survives Anthropic stream → Chat client stream → Anthropic request', () => {
    const request: ChatRequest = { model: 'm', system: [], messages: [], stream: true };
    const chunks = parseEvents(translateStream(messagesCodec, chatCodec, request, readFixture('messages/stream-thinking.sse.txt'), 7))
      .map((e) => e.data)
      .filter((d) => typeof d === 'object');
    // Accumulate reasoning_details by index the way OpenRouter-aware clients do.
    const details: Msg[] = [];
    let content = '';
    for (const chunk of chunks) {
      const delta = chunk.choices?.[0]?.delta ?? {};
      content += delta.content ?? '';
      for (const detail of delta.reasoning_details ?? []) {
        const slot = (details[detail.index] ??= { ...detail, text: '' });
        if (detail.text) slot.text += detail.text;
        if (detail.signature) slot.signature = detail.signature;
      }
    }
    const next = chatCodec.decodeRequest({
      model: 'claude',
      messages: [
        { role: 'user', content: 'What is 27 * 453?' },
        { role: 'assistant', content, reasoning_details: details },
        { role: 'user', content: 'And times 2?' },
      ],
    });
    const upstream = messagesCodec.encodeRequest(next, { upstreamModel: 'claude' });
    expect((upstream.messages as Msg[])[1].content).toEqual([
      {
        type: 'thinking',
        thinking: 'Let me solve this step by step:\n\n1. 27 * 453 = 12231',
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+ATjxoUOvwMUBpsnl/Q==',
      },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
      { type: 'text', text: '27 * 453 = 12,231' },
    ]);
  });

  it('usage survives Anthropic → IR → Chat → IR → Anthropic', () => {
    const original = readJsonFixture('messages/response-thinking.json');
    const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };
    const chat = chatCodec.encodeResponse(messagesCodec.decodeResponse(original), request);
    const back = messagesCodec.encodeResponse(chatCodec.decodeResponse(chat), request);
    expect(back.usage).toEqual({ input_tokens: 50, output_tokens: 300, cache_creation_input_tokens: 200, cache_read_input_tokens: 1000 });
  });
});
